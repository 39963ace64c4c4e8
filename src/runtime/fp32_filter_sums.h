#pragma once
// The calls of a backward filter split summed in FP32 (optimize/filter_sums.h says why and how it
// is priced): each micro-batch convolved into the filter gradient with beta = 0 and again with
// beta = -1, each result added to an FP32 accumulator, which is converted to the filter's type
// once at the end. The accumulator is the first fp32_sum_bytes(key) of the call's workspace; the
// convolutions get the rest. Nothing is synchronised with the host.

#include <cudnn.h>

#include <cstddef>
#include <functional>
#include <memory>

#include "core/conv_key.h"
#include "runtime/cuda_status.h"
#include "runtime/owned.h"

namespace ucudnn::runtime {

class Fp32FilterSums {
 public:
  /// The descriptors of `key`'s filter gradient as a flat tensor, in its type and in FP32.
  static Status make(const ConvKey& key, std::unique_ptr<Fp32FilterSums>* out);

  /// Queues a call of the split. `convolve(micro_batch_index, beta)` queues micro-batch i's
  /// convolution into `dw` with the caller's alpha and the given beta (0 or -1), on the
  /// accumulator-free workspace. `beta` is the caller's (null: 0); `micro_batches` at least 2.
  Status run(cudnnHandle_t handle, int micro_batches, double beta, void* dw, void* accumulator,
             const std::function<Status(int, double)>& convolve) const;

 private:
  Fp32FilterSums() = default;
  TensorDescriptor in_filter_type_;
  TensorDescriptor in_fp32_;
};

}  // namespace ucudnn::runtime
