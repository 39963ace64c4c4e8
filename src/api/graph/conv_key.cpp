#include "api/graph/conv_key.h"

#include <cudnn.h>

#include <climits>
#include <string>

#include "runtime/descriptors.h"

namespace ucudnn::api {
using ucudnn::runtime::element_size;
namespace {

Status unsupported(const std::string& why) { return Error(ErrorCode::kNotSupported, "graph convolution: " + why); }

bool narrow(const std::vector<std::int64_t>& in, std::vector<int>* out) {
  out->clear();
  for (std::int64_t v : in) {
    if (v < INT_MIN || v > INT_MAX) return false;
    out->push_back(static_cast<int>(v));
  }
  return true;
}

Status tensor_layout(const GraphTensor& t, const char* role, TensorLayout* out) {
  out->data_type = t.data_type;
  if (!narrow(t.dims, &out->dims) || !narrow(t.strides, &out->strides)) {
    return unsupported(std::string(role) + " has a dimension or stride beyond int");
  }
  return Status::success();
}

// Packed strides of `dims` in NCHW order, or with C innermost (NHWC order).
std::vector<std::int64_t> packed_strides(const std::vector<std::int64_t>& dims, bool channels_last) {
  const std::size_t rank = dims.size();
  std::vector<std::int64_t> strides(rank);
  std::int64_t stride = 1;
  if (channels_last) {
    strides[1] = stride;
    stride *= dims[1];
    for (std::size_t i = rank; i-- > 2;) {
      strides[i] = stride;
      stride *= dims[i];
    }
    strides[0] = stride;
  } else {
    for (std::size_t i = rank; i-- > 0;) {
      strides[i] = stride;
      stride *= dims[i];
    }
  }
  return strides;
}

// A legacy filter descriptor has no strides: only the two packed layouts can be expressed. A
// dimension of 1 leaves its stride free, as cuDNN's own layout checks do.
bool same_layout(const GraphTensor& w, const std::vector<std::int64_t>& expected) {
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (w.dims[i] != 1 && w.strides[i] != expected[i]) return false;
  }
  return true;
}

}  // namespace

int graph_math_type(int data_type, bool engine_uses_tensor_cores) {
  switch (data_type) {
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16: return CUDNN_TENSOR_OP_MATH;
    case CUDNN_DATA_FLOAT: return engine_uses_tensor_cores ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
    default: return CUDNN_DEFAULT_MATH;
  }
}

Status graph_conv_key(const GraphConvolution& conv, int device, int math_type, ConvKey* key) {
  const std::size_t rank = conv.x.dims.size();
  if (rank != 4 && rank != 5) return unsupported("only 4-d and 5-d tensors are split");
  if (conv.w.dims.size() != rank || conv.y.dims.size() != rank) return unsupported("tensor ranks differ");
  const std::size_t spatial = rank - 2;
  if (conv.pre_pads.size() != spatial || conv.post_pads.size() != spatial || conv.strides.size() != spatial ||
      conv.dilations.size() != spatial) {
    return unsupported("the convolution's spatial dimensions do not match the tensors'");
  }
  if (conv.pre_pads != conv.post_pads) return unsupported("asymmetric padding");
  if (conv.x.dims[0] <= 0 || conv.x.dims[0] != conv.y.dims[0]) return unsupported("batch sizes differ");
  if (conv.w.dims[1] <= 0 || conv.x.dims[1] % conv.w.dims[1] != 0) {
    return unsupported("input channels are no multiple of the filter's");
  }
  ConvKey k;
  k.op = conv.op;
  k.device = device;
  UCUDNN_TRY(tensor_layout(conv.x, "x", &k.x));
  UCUDNN_TRY(tensor_layout(conv.y, "y", &k.y));
  k.w.data_type = conv.w.data_type;
  if (same_layout(conv.w, packed_strides(conv.w.dims, false))) {
    k.w.format = CUDNN_TENSOR_NCHW;
  } else if (same_layout(conv.w, packed_strides(conv.w.dims, true))) {
    k.w.format = CUDNN_TENSOR_NHWC;
  } else {
    return unsupported("the filter is neither packed NCHW nor packed NHWC");
  }
  if (!narrow(conv.w.dims, &k.w.dims)) return unsupported("the filter has a dimension beyond int");
  k.conv.mode = conv.mode;
  k.conv.compute_type = conv.compute_type;
  k.conv.group_count = static_cast<int>(conv.x.dims[1] / conv.w.dims[1]);
  k.conv.math_type = math_type;
  k.conv.reorder_type = CUDNN_DEFAULT_REORDER;
  if (!narrow(conv.pre_pads, &k.conv.pads) || !narrow(conv.strides, &k.conv.strides) ||
      !narrow(conv.dilations, &k.conv.dilations)) {
    return unsupported("a padding, stride or dilation beyond int");
  }
  if (element_size(k.x.data_type) == 0 || element_size(k.y.data_type) == 0) {
    return unsupported("data type " + std::to_string(k.x.data_type) + " cannot be split along N");
  }
  *key = std::move(k);
  return Status::success();
}

}  // namespace ucudnn::api
