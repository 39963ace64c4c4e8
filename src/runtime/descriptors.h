#pragma once
// cuDNN descriptors: reading a caller's descriptors into a ConvKey, and making
// descriptors back from a ConvKey (for micro-batches and for each math type).

#include <cudnn.h>

#include <cstddef>

#include "core/conv_key.h"
#include "runtime/cuda_status.h"
#include "runtime/owned.h"

namespace ucudnn::runtime {

/// The caller's descriptors of one convolution, in forward naming (see ConvKey).
struct ConvDescriptors {
  cudnnTensorDescriptor_t x = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnTensorDescriptor_t y = nullptr;
};

/// Reads every field of the descriptors. Fails (NOT_SUPPORTED) for what ucudnn cannot split:
/// tensors other than 4-d or 5-d, mismatched batch sizes, vectorized or unknown data types.
Status read_conv_key(ConvOp op, int device, const ConvDescriptors& descriptors, ConvKey* key);

Status make_tensor_descriptor(const TensorLayout& layout, TensorDescriptor* out);
Status make_filter_descriptor(const FilterLayout& layout, FilterDescriptor* out);
/// A copy of the caller's convolution with its own math type.
Status make_convolution_descriptor(const ConvParams& params, int math_type, ConvolutionDescriptor* out);

/// Bytes per element of a data type that can be split along N; 0 for the others.
std::size_t element_size(int data_type);
/// Elements spanned by a strided tensor: 1 + sum over dims of (dim - 1) * stride.
std::size_t extent_elements(const TensorLayout& layout);

}  // namespace ucudnn::runtime
