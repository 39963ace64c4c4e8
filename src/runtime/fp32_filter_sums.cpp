#include "runtime/fp32_filter_sums.h"

#include <climits>

#include "runtime/cudnn_shim.h"
#include "runtime/descriptors.h"

namespace ucudnn::runtime {

namespace {

// A packed filter as a 4-d tensor of one row: the sums are elementwise, so the filter's format
// does not matter as long as both tensors share it.
TensorLayout flat(int data_type, int elements) {
  return TensorLayout{data_type, {1, 1, 1, elements}, {elements, elements, elements, 1}};
}

}  // namespace

Status Fp32FilterSums::make(const ConvKey& key, std::unique_ptr<Fp32FilterSums>* out) {
  long long elements = 1;
  for (int d : key.w.dims) elements *= d;
  if (elements <= 0 || elements > INT_MAX) {
    return Error(ErrorCode::kNotSupported, "a filter of " + std::to_string(elements) +
                                               " elements cannot be summed in FP32 by cuDNN's tensor calls");
  }
  std::unique_ptr<Fp32FilterSums> sums(new Fp32FilterSums());
  UCUDNN_TRY(make_tensor_descriptor(flat(key.w.data_type, static_cast<int>(elements)), &sums->in_filter_type_));
  UCUDNN_TRY(make_tensor_descriptor(flat(CUDNN_DATA_FLOAT, static_cast<int>(elements)), &sums->in_fp32_));
  *out = std::move(sums);
  return Status::success();
}

// Half and bfloat16 tensors take float scaling factors.
Status Fp32FilterSums::start(cudnnHandle_t handle, double beta, const void* dw, void* accumulator) const {
  if (beta == 0.0) return Status::success();
  const float zero = 0.0f, caller_beta = static_cast<float>(beta);
  return transform_tensor(handle, &caller_beta, in_filter_type_.get(), dw, &zero, in_fp32_.get(), accumulator);
}

Status Fp32FilterSums::add(cudnnHandle_t handle, const void* dw, void* accumulator, bool first) const {
  const float zero = 0.0f, one = 1.0f;
  return transform_tensor(handle, &one, in_filter_type_.get(), dw, first ? &zero : &one, in_fp32_.get(), accumulator);
}

Status Fp32FilterSums::finish(cudnnHandle_t handle, const void* accumulator, void* dw) const {
  const float zero = 0.0f, one = 1.0f;
  return transform_tensor(handle, &one, in_fp32_.get(), accumulator, &zero, in_filter_type_.get(), dw);
}

}  // namespace ucudnn::runtime
