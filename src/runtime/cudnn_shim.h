#pragma once
// Every raw cuDNN convolution call of ucudnn goes through here: one op-generic function per kind
// of call, so error conversion and logging have one home and the rest of the code is written
// once for the three operations.

#include <cudnn.h>

#include <cstddef>
#include <vector>

#include "core/conv_op.h"
#include "runtime/cuda_status.h"
#include "runtime/descriptors.h"

namespace ucudnn::runtime {

/// cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t without the op-specific algo type.
struct AlgoPerf {
  int algo = 0;
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  float time_ms = 0;
  std::size_t memory = 0;
  cudnnDeterminism_t determinism = CUDNN_NON_DETERMINISTIC;
  cudnnMathType_t math_type = CUDNN_DEFAULT_MATH;
};

/// Device pointers in forward naming: x input (dx for backward data), w filter (dw for backward
/// filter), y output (dy for both backward operations).
struct ConvBuffers {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
};

/// cudnnGetConvolution*Algorithm_v7: cuDNN's heuristics, no benchmarking.
Status get_algorithms(cudnnHandle_t handle, ConvOp op, const ConvDescriptors& d, std::vector<AlgoPerf>* out);
/// cudnnFindConvolution*Algorithm: cuDNN benchmarks with buffers of its own.
Status find_algorithms(cudnnHandle_t handle, ConvOp op, const ConvDescriptors& d, std::vector<AlgoPerf>* out);
/// cudnnFindConvolution*AlgorithmEx on the given buffers and workspace.
Status find_algorithms_ex(cudnnHandle_t handle, ConvOp op, const ConvDescriptors& d, const ConvBuffers& buffers,
                          void* workspace, std::size_t workspace_bytes, std::vector<AlgoPerf>* out);
/// cudnnGetConvolution*WorkspaceSize.
Status workspace_size(cudnnHandle_t handle, ConvOp op, const ConvDescriptors& d, int algo, std::size_t* bytes);
/// cudnnConvolution{Forward,BackwardData,BackwardFilter}.
Status convolve(cudnnHandle_t handle, ConvOp op, const ConvDescriptors& d, int algo, const void* alpha,
                const ConvBuffers& buffers, void* workspace, std::size_t workspace_bytes, const void* beta);

/// cudnnTransformTensor: y = alpha x + beta y, elementwise, converting between the descriptors'
/// data types (backward filter's FP32 sums, optimize/filter_sums.h).
Status transform_tensor(cudnnHandle_t handle, const void* alpha, cudnnTensorDescriptor_t x_desc, const void* x,
                        const void* beta, cudnnTensorDescriptor_t y_desc, void* y);
/// cudnnSetTensor: every element of y set to *value (the padded input's zero channels).
Status set_tensor(cudnnHandle_t handle, cudnnTensorDescriptor_t y_desc, void* y, const void* value);

}  // namespace ucudnn::runtime
