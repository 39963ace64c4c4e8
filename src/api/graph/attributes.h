#pragma once
// What each descriptor type the graph records follow (api/graph/records.h) holds, as the program
// set it, and how one cudnnBackendSetAttribute call is read into it: per type, the attributes
// ucudnn understands (an attribute it does not makes the descriptor unsupported, and its graph
// passes through to cuDNN).

#include <cudnn.h>

#include <cstdint>
#include <variant>
#include <vector>

#include "api/graph/convolution.h"
#include "runtime/backend_attributes.h"

namespace ucudnn::api {

// What each tracked type of descriptor holds, as the program set it; the fields every record has
// are in GraphRecords::Record.

struct TensorFields {
  GraphTensor tensor;
  bool is_virtual = false, by_value = false, vectorized = false, reordered = false, ragged = false;
};

struct ConvolutionFields {
  int compute_type = -1, mode = CUDNN_CROSS_CORRELATION;
  std::int64_t spatial_dims = -1;
  std::vector<std::int64_t> pre_pads, post_pads, strides, dilations;
};

// A convolution operation: what it refers to, until finalize freezes it.
struct OperationFields {
  const runtime::ConvolutionOperationAttributes* names;  ///< its attributes (never null)
  cudnnBackendDescriptor_t x = nullptr, w = nullptr, y = nullptr, conv = nullptr;
  double alpha = 1.0, beta = 0.0;
};

struct GraphFields {
  std::vector<cudnnBackendDescriptor_t> ops;
  cudnnHandle_t handle = nullptr;
};

// Engines, heuristics, configurations and plans: the descriptor each was made from.
struct ChainFields {
  cudnnBackendDescriptor_t source = nullptr;
  int offer = -1;                  ///< which micro-batch offer this is, or a plan is made from (-1: none)
  cudnnHandle_t handle = nullptr;  ///< plans only
};

struct VariantPackFields {
  std::vector<std::int64_t> uids;
  std::vector<void*> pointers;
  void* workspace = nullptr;
  bool overrides = false;  ///< dynamic-shape overrides or intermediates: not a plain call
};

using Fields =
    std::variant<TensorFields, ConvolutionFields, OperationFields, GraphFields, ChainFields, VariantPackFields>;

/// The fields of a fresh descriptor of a tracked `type`.
Fields fields_for(cudnnBackendDescriptorType_t type);

/// Reads one attribute the program set on a descriptor of `type` into its `fields`; false where
/// ucudnn does not understand it (or its type or count is not the one expected).
bool set_attribute(cudnnBackendDescriptorType_t type, Fields& fields, cudnnBackendAttributeName_t name,
                   cudnnBackendAttributeType_t attribute_type, std::int64_t count, const void* values);

}  // namespace ucudnn::api
