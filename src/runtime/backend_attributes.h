#pragma once
// cuDNN's graph-API attribute names as ucudnn reads and writes them, in one table: the records of
// a program's descriptors (api/graph_records) read them, runtime/backend_graph sets them on the
// graphs it builds. Header-only and free of CUDA calls (cuDNN's header only).

#include <cudnn.h>

#include "core/conv_op.h"

namespace ucudnn::runtime {

/// The handle attributes of graphs and plans, by value: cuDNN 9.19's headers mark them deprecated,
/// yet older cuDNN 9 releases (9.14 on the GPU machines) read them for the device, and frameworks
/// still set them.
constexpr auto kOperationGraphHandle = static_cast<cudnnBackendAttributeName_t>(800);
constexpr auto kExecutionPlanHandle = static_cast<cudnnBackendAttributeName_t>(400);

/// What a convolution operation's attributes are called, in forward naming (as ConvKey): x is the
/// input activation (dx for backward data), w the filter (dw), y the output (dy).
struct ConvolutionOperationAttributes {
  ConvOp op;
  cudnnBackendDescriptorType_t type;
  cudnnBackendAttributeName_t x, w, y, conv, alpha, beta;
};

inline constexpr ConvolutionOperationAttributes kConvolutionOperations[] = {
    {ConvOp::kForward, CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
     CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
     CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
     CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA},
    {ConvOp::kBackwardData, CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA},
    {ConvOp::kBackwardFilter, CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA},
};

/// The attributes of `op`'s operation.
inline const ConvolutionOperationAttributes& convolution_operation(ConvOp op) {
  for (const auto& operation : kConvolutionOperations) {
    if (operation.op == op) return operation;
  }
  return kConvolutionOperations[0];  // unreachable: every ConvOp is listed
}

/// The attributes of the operation of descriptor type `type`; null where it is no convolution.
inline const ConvolutionOperationAttributes* convolution_operation(cudnnBackendDescriptorType_t type) {
  for (const auto& operation : kConvolutionOperations) {
    if (operation.type == type) return &operation;
  }
  return nullptr;
}

}  // namespace ucudnn::runtime
