#include "core/conv_layer.h"

#include "core/cudnn_values.h"

namespace ucudnn {
namespace {

using cudnn_values::kCrossCorrelation;
using cudnn_values::kDataBfloat16;
using cudnn_values::kDataFloat;
using cudnn_values::kDataHalf;
using cudnn_values::kDefaultMath;
using cudnn_values::kDefaultReorder;
using cudnn_values::kTensorNchw;
using cudnn_values::kTensorNhwc;

// Packed strides of dims given in N, C, spatial... order.
std::vector<int> packed_strides(const std::vector<int>& dims, Layout layout) {
  const int rank = static_cast<int>(dims.size());
  std::vector<int> strides(rank);
  int s = 1;
  if (layout == Layout::kNhwc) {
    strides[1] = 1;
    s = dims[1];
    for (int i = rank - 1; i >= 2; --i) {
      strides[i] = s;
      s *= dims[i];
    }
    strides[0] = s;
  } else {
    for (int i = rank - 1; i >= 0; --i) {
      strides[i] = s;
      s *= dims[i];
    }
  }
  return strides;
}

}  // namespace

int conv_output_size(int input, int filter, int pad, int stride, int dilation) {
  return (input + 2 * pad - dilation * (filter - 1) - 1) / stride + 1;
}

Expected<ConvKey> to_conv_key(const ConvLayerSpec& spec, ConvOp op, int device) {
  const std::string where = "layer '" + spec.name + "': ";
  const std::size_t nd = spec.spatial.size();
  if (nd != 2 && nd != 3) return Error::invalid(where + "needs 2 or 3 spatial dimensions");
  if (spec.filter.size() != nd || spec.pad.size() != nd || spec.stride.size() != nd || spec.dilation.size() != nd) {
    return Error::invalid(where + "filter, pad, stride and dilation need one value per spatial dimension");
  }
  if (spec.batch <= 0 || spec.channels <= 0 || spec.filters <= 0 || spec.groups <= 0) {
    return Error::invalid(where + "batch, channels, filters and groups must be positive");
  }
  if (spec.channels % spec.groups != 0 || spec.filters % spec.groups != 0) {
    return Error::invalid(where + "channels and filters must be divisible by groups");
  }
  if (spec.data_type != kDataFloat && spec.data_type != kDataHalf && spec.data_type != kDataBfloat16) {
    return Error::invalid(where + "data type must be float, half or bfloat16");
  }
  ConvKey key;
  key.op = op;
  key.device = device;
  key.x.data_type = key.y.data_type = key.w.data_type = spec.data_type;
  key.x.dims = {spec.batch, spec.channels};
  key.y.dims = {spec.batch, spec.filters};
  key.w.dims = {spec.filters, spec.channels / spec.groups};
  for (std::size_t i = 0; i < nd; ++i) {
    if (spec.spatial[i] <= 0 || spec.filter[i] <= 0 || spec.stride[i] <= 0 || spec.dilation[i] <= 0 || spec.pad[i] < 0) {
      return Error::invalid(where + "sizes, strides and dilations must be positive, pads not negative");
    }
    const int out = conv_output_size(spec.spatial[i], spec.filter[i], spec.pad[i], spec.stride[i], spec.dilation[i]);
    if (out <= 0) return Error::invalid(where + "the filter does not fit the padded input");
    key.x.dims.push_back(spec.spatial[i]);
    key.y.dims.push_back(out);
    key.w.dims.push_back(spec.filter[i]);
  }
  key.x.strides = packed_strides(key.x.dims, spec.layout);
  key.y.strides = packed_strides(key.y.dims, spec.layout);
  key.w.format = spec.layout == Layout::kNhwc ? kTensorNhwc : kTensorNchw;
  key.conv.mode = kCrossCorrelation;
  key.conv.compute_type = kDataFloat;
  key.conv.group_count = spec.groups;
  key.conv.math_type = kDefaultMath;
  key.conv.reorder_type = kDefaultReorder;
  key.conv.pads = spec.pad;
  key.conv.strides = spec.stride;
  key.conv.dilations = spec.dilation;
  return key;
}

}  // namespace ucudnn
