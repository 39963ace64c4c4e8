#include "runtime/padded_input_copies.h"

#include <algorithm>
#include <climits>

#include "core/cudnn_values.h"
#include "optimize/padded_input.h"
#include "runtime/cudnn_shim.h"
#include "runtime/descriptors.h"

namespace ucudnn::runtime {

namespace {

// A flat tensor of `elements`, to set a whole buffer.
Status make_flat(int data_type, std::size_t elements, TensorDescriptor* out) {
  if (elements == 0 || elements > static_cast<std::size_t>(INT_MAX)) {
    return Error(ErrorCode::kNotSupported,
                 "a padded copy of " + std::to_string(elements) + " elements is beyond cuDNN's tensor calls");
  }
  const int n = static_cast<int>(elements);
  return make_tensor_descriptor(TensorLayout{data_type, {1, 1, 1, n}, {n, n, n, 1}}, out);
}

std::size_t elements_of(const std::vector<int>& dims) {
  std::size_t elements = 1;
  for (int d : dims) elements *= static_cast<std::size_t>(d);
  return elements;
}

}  // namespace

Status PaddedInputCopies::make(const ConvKey& key, const std::vector<int>& sizes,
                               std::unique_ptr<PaddedInputCopies>* out) {
  if (!optimize::input_padding_allowed(key) || sizes.empty()) {
    return Error(ErrorCode::kNotSupported, "no padded input for " + key.to_string());
  }
  std::unique_ptr<PaddedInputCopies> copies(new PaddedInputCopies());
  copies->key_ = key;
  copies->padded_ = optimize::padded_input_key(key);
  const int largest = *std::max_element(sizes.begin(), sizes.end());
  copies->filter_bytes_ = optimize::padded_filter_bytes(key);
  copies->input_bytes_ = optimize::padded_copy_bytes(key, largest) - copies->filter_bytes_;
  const ConvKey& padded = copies->padded_;
  UCUDNN_TRY(make_flat(key.x.data_type, elements_of(padded.with_batch(largest).x.dims), &copies->input_flat_));
  UCUDNN_TRY(make_flat(key.w.data_type, elements_of(padded.w.dims), &copies->filter_flat_));
  for (int size : sizes) {
    if (copies->input_views_.count(size)) continue;
    TensorLayout caller = key.with_batch(size).x;
    TensorLayout real = caller;
    real.strides = padded.x.strides;
    auto& views = copies->input_views_[size];
    UCUDNN_TRY(make_tensor_descriptor(caller, &views.first));
    UCUDNN_TRY(make_tensor_descriptor(real, &views.second));
  }
  const bool channels_last = key.w.format == cudnn_values::kTensorNhwc;
  const TensorLayout filter{key.w.data_type, key.w.dims, optimize::packed_strides(key.w.dims, channels_last)};
  const TensorLayout filter_copy_real{key.w.data_type, key.w.dims,
                                      optimize::packed_strides(padded.w.dims, channels_last)};
  UCUDNN_TRY(make_tensor_descriptor(filter, &copies->filter_));
  UCUDNN_TRY(make_tensor_descriptor(filter_copy_real, &copies->filter_copy_real_));
  UCUDNN_TRY(make_flat(CUDNN_DATA_FLOAT, elements_of(padded.w.dims), &copies->fp32_flat_));
  UCUDNN_TRY(make_tensor_descriptor(
      TensorLayout{CUDNN_DATA_FLOAT, key.w.dims, optimize::packed_strides(padded.w.dims, channels_last)},
      &copies->fp32_real_));
  *out = std::move(copies);
  return Status::success();
}

// FP32, FP16 and BF16 tensors (the types a padded input allows) take float scaling factors.
Status PaddedInputCopies::start(cudnnHandle_t handle, const void* w, void* buffers) const {
  const float zero = 0.0f, one = 1.0f;
  UCUDNN_TRY(set_tensor(handle, input_flat_.get(), input_copy(buffers), &zero));
  if (key_.op != ConvOp::kForward) return Status::success();
  UCUDNN_TRY(set_tensor(handle, filter_flat_.get(), filter_copy(buffers), &zero));
  return transform_tensor(handle, &one, filter_.get(), w, &zero, filter_copy_real_.get(), filter_copy(buffers));
}

Status PaddedInputCopies::copy_input(cudnnHandle_t handle, int size, const void* x, void* buffers) const {
  const auto views = input_views_.find(size);
  if (views == input_views_.end()) {
    return Error(ErrorCode::kInternal, "no padded copy of a micro-batch of " + std::to_string(size));
  }
  const float zero = 0.0f, one = 1.0f;
  return transform_tensor(handle, &one, views->second.first.get(), x, &zero, views->second.second.get(),
                          input_copy(buffers));
}

Status PaddedInputCopies::preload_gradient(cudnnHandle_t handle, double beta, const void* dw, void* buffers) const {
  const float zero = 0.0f, caller_beta = static_cast<float>(beta);
  UCUDNN_TRY(set_tensor(handle, filter_flat_.get(), filter_copy(buffers), &zero));
  return transform_tensor(handle, &caller_beta, filter_.get(), dw, &zero, filter_copy_real_.get(),
                          filter_copy(buffers));
}

Status PaddedInputCopies::preload_fp32_sums(cudnnHandle_t handle, double beta, const void* dw,
                                            void* fp32_accumulator) const {
  const float zero = 0.0f, caller_beta = static_cast<float>(beta);
  UCUDNN_TRY(set_tensor(handle, fp32_flat_.get(), fp32_accumulator, &zero));
  return transform_tensor(handle, &caller_beta, filter_.get(), dw, &zero, fp32_real_.get(), fp32_accumulator);
}

Status PaddedInputCopies::copy_filter_gradient_out(cudnnHandle_t handle, const void* buffers, void* dw) const {
  const float zero = 0.0f, one = 1.0f;
  return transform_tensor(handle, &one, filter_copy_real_.get(), filter_copy(buffers), &zero, filter_.get(), dw);
}

}  // namespace ucudnn::runtime
