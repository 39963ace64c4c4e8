#pragma once
// A single-convolution graph as the program described it through cuDNN's graph API: its tensors,
// the convolution, and what a finalized plan runs. Plain values: the records (api/graph/records.h)
// build them, the attribute readers (api/graph/attributes.h) fill them.

#include <cudnn.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/conv_op.h"

namespace ucudnn::api {

/// One tensor of a convolution, as the program described it.
struct GraphTensor {
  std::int64_t uid = 0;
  int data_type = -1;  ///< cudnnDataType_t; -1: not set
  std::vector<std::int64_t> dims, strides;
};

/// The one operation of a single-convolution graph, in forward naming (as ConvKey): x is the
/// input activation (dx for backward data), w the filter (dw), y the output (dy).
struct GraphConvolution {
  ConvOp op = ConvOp::kForward;
  GraphTensor x, w, y;
  int compute_type = -1;  ///< cudnnDataType_t
  int mode = CUDNN_CROSS_CORRELATION;
  std::vector<std::int64_t> pre_pads, post_pads, strides, dilations;
  double alpha = 1.0, beta = 0.0;
  cudnnHandle_t handle = nullptr;  ///< the graph's handle, where the program set one
};

/// What a finalized execution plan runs.
struct GraphPlanFacts {
  std::shared_ptr<const GraphConvolution> convolution;  ///< null: some other graph
  cudnnHandle_t handle = nullptr;                       ///< the plan's handle, else the graph's, else null
  int offer = -1;  ///< built from micro-batch offer i (api/graph/offer.h); -1: none
};

}  // namespace ucudnn::api
