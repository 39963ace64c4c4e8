#pragma once
// The calls of a backward filter split summed in FP32 (optimize/filter_sums.h says why and how it
// is priced): each micro-batch convolved into the filter gradient with beta = 0 and again with
// beta = -1, each result added to an FP32 accumulator, which is converted to the filter's type
// once at the end. The accumulator is the first fp32_sum_bytes(key) of the call's workspace; the
// convolutions get the rest (runtime/executor.cpp queues them between these steps). Nothing is
// synchronised with the host.

#include <cudnn.h>

#include <cstddef>
#include <memory>

#include "core/conv_key.h"
#include "runtime/cuda_status.h"
#include "runtime/owned.h"

namespace ucudnn::runtime {

class Fp32FilterSums {
 public:
  /// The descriptors of `key`'s filter gradient as a flat tensor, in its type and in FP32.
  static Status make(const ConvKey& key, std::unique_ptr<Fp32FilterSums>* out);

  /// Starts a call's sum: the accumulator (the workspace's first fp32_sum_bytes) becomes the
  /// caller's beta times `dw`'s old values; nothing where beta is 0 (the first add then sets it).
  Status start(cudnnHandle_t handle, double beta, const void* dw, void* accumulator) const;
  /// Adds `dw` (a micro-batch's call just wrote it) to the accumulator; `first`: it holds nothing
  /// yet, so it is set instead.
  Status add(cudnnHandle_t handle, const void* dw, void* accumulator, bool first) const;
  /// Writes the accumulator into `dw`, in dw's type.
  Status finish(cudnnHandle_t handle, const void* accumulator, void* dw) const;

 private:
  Fp32FilterSums() = default;
  TensorDescriptor in_filter_type_;
  TensorDescriptor in_fp32_;
};

}  // namespace ucudnn::runtime
