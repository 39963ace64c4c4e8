#pragma once
// ConvKey: the canonical, complete description of one convolution kernel, used to key benchmark
// rows and plans. Every field of every descriptor is part of the key (dims, tensor strides, data
// types, filter format, pads, strides, dilations, groups, mode, compute type, math type, reorder
// type), plus the operation and the device, so that kernels differing in anything are distinct.
// Plain values: copyable, comparable, hashable; thread-compatible like any value type.

#include <cstddef>
#include <string>
#include <vector>

#include "core/conv_op.h"

namespace ucudnn {

struct TensorLayout {
  int data_type = 0;         ///< cudnnDataType_t
  std::vector<int> dims;     ///< N first
  std::vector<int> strides;  ///< in elements, as the caller's descriptor gives them
};

struct FilterLayout {
  int data_type = 0;  ///< cudnnDataType_t
  int format = 0;     ///< cudnnTensorFormat_t
  std::vector<int> dims;
};

struct ConvParams {
  int mode = 0;          ///< cudnnConvolutionMode_t
  int compute_type = 0;  ///< cudnnDataType_t
  int group_count = 1;
  int math_type = 0;     ///< cudnnMathType_t the caller set
  int reorder_type = 0;  ///< cudnnReorderType_t
  std::vector<int> pads, strides, dilations;
};

struct ConvKey {
  ConvOp op = ConvOp::kForward;
  int device = 0;  ///< CUDA device ordinal of the handle
  TensorLayout x;  ///< input activation (dx for backward data)
  FilterLayout w;  ///< filter (dw for backward filter)
  ConvParams conv;
  TensorLayout y;  ///< output activation (dy for the backward operations)

  int batch() const { return x.dims.empty() ? 0 : x.dims[0]; }
  /// The same kernel on a micro-batch of n samples: N of x and y replaced, strides kept.
  ConvKey with_batch(int n) const;
  /// A stable, human-readable rendering of every field (for logs).
  std::string to_string() const;
  /// Every field except the device, the op and N: what identifies a layer in the database.
  /// Stable across versions of ucudnn (a persistent key).
  std::string layer_signature() const;

  friend bool operator==(const ConvKey& a, const ConvKey& b);
  friend bool operator!=(const ConvKey& a, const ConvKey& b) { return !(a == b); }
  /// A strict total order over every field (for ordered containers); no meaning beyond that.
  friend bool operator<(const ConvKey& a, const ConvKey& b);
};

struct ConvKeyHash {
  std::size_t operator()(const ConvKey& key) const;
};

}  // namespace ucudnn
