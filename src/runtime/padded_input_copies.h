#pragma once
// The copies of a plan run on a padded input (optimize/padded_input.h says why and how it is
// priced): each micro-batch's x copied into a buffer with zero channels, the filter copied in with
// zero channels (forward) or the filter gradient's real channels copied out at the end (backward
// filter). The buffers are the first workspace_bytes() of what the plan's calls get; the
// convolutions (of padded_key()) get the rest. Nothing is synchronised with the host.

#include <cudnn.h>

#include <cstddef>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "core/conv_key.h"
#include "runtime/cuda_status.h"
#include "runtime/owned.h"

namespace ucudnn::runtime {

class PaddedInputCopies {
 public:
  /// The descriptors of `key`'s copies (optimize/input_padding_allowed) at micro-batches of `sizes`.
  static Status make(const ConvKey& key, const std::vector<int>& sizes, std::unique_ptr<PaddedInputCopies>* out);

  /// The convolution the plan's calls run: `key` on the padded copies.
  const ConvKey& padded_key() const { return padded_; }
  /// The buffers' bytes: the input copy at the largest size, then the filter's copy.
  std::size_t workspace_bytes() const { return input_bytes_ + filter_bytes_; }
  void* input_copy(void* buffers) const { return buffers; }
  void* filter_copy(void* buffers) const { return static_cast<char*>(buffers) + input_bytes_; }
  const void* filter_copy(const void* buffers) const { return static_cast<const char*>(buffers) + input_bytes_; }

  /// Starts a call: the input copy zeroed, so that its padding channels stay zero through the call
  /// (each micro-batch writes only the real ones); forward: the filter `w` copied in with zero channels.
  Status start(cudnnHandle_t handle, const void* w, void* buffers) const;
  /// Copies a micro-batch of `size` samples of x (the caller's strides) into the input copy.
  Status copy_input(cudnnHandle_t handle, int size, const void* x, void* buffers) const;
  /// Backward filter with the caller's beta not 0: the gradient's copy set to beta dw in its real
  /// channels (zero in the others) before the calls add to it, so that the sum is rounded once, as
  /// an undivided call rounds it. `fp32_accumulator`: the same into a split's FP32 accumulator
  /// (runtime/fp32_filter_sums.h) instead, which holds the padded gradient.
  Status preload_gradient(cudnnHandle_t handle, double beta, const void* dw, void* buffers) const;
  Status preload_fp32_sums(cudnnHandle_t handle, double beta, const void* dw, void* fp32_accumulator) const;
  /// Backward filter's end: dw = the gradient copy's real channels (an exact copy).
  Status copy_filter_gradient_out(cudnnHandle_t handle, const void* buffers, void* dw) const;

 private:
  PaddedInputCopies() = default;
  ConvKey key_, padded_;
  std::size_t input_bytes_ = 0, filter_bytes_ = 0;
  TensorDescriptor input_flat_, filter_flat_;  ///< the whole copies, to zero them
  /// By micro-batch size: the caller's x and the copy's real channels.
  std::map<int, std::pair<TensorDescriptor, TensorDescriptor>> input_views_;
  TensorDescriptor filter_, filter_copy_real_;  ///< the caller's filter and the copy's real channels, as tensors
  TensorDescriptor fp32_flat_, fp32_real_;      ///< the padded gradient in FP32: whole, and its real channels
};

}  // namespace ucudnn::runtime
