#include "runtime/descriptors.h"

namespace ucudnn::runtime {
namespace {

constexpr int kMaxDims = CUDNN_DIM_MAX;

Status read_tensor(cudnnTensorDescriptor_t desc, TensorLayout* out) {
  cudnnDataType_t type;
  int nb = 0;
  int dims[kMaxDims], strides[kMaxDims];
  UCUDNN_CHECK_CUDNN(cudnnGetTensorNdDescriptor(desc, kMaxDims, &type, &nb, dims, strides));
  out->data_type = type;
  out->dims.assign(dims, dims + nb);
  out->strides.assign(strides, strides + nb);
  return Status::success();
}

Status read_filter(cudnnFilterDescriptor_t desc, FilterLayout* out) {
  cudnnDataType_t type;
  cudnnTensorFormat_t format;
  int nb = 0;
  int dims[kMaxDims];
  UCUDNN_CHECK_CUDNN(cudnnGetFilterNdDescriptor(desc, kMaxDims, &type, &format, &nb, dims));
  out->data_type = type;
  out->format = format;
  out->dims.assign(dims, dims + nb);
  return Status::success();
}

Status read_convolution(cudnnConvolutionDescriptor_t desc, ConvParams* out) {
  int length = 0;
  int pads[kMaxDims], strides[kMaxDims], dilations[kMaxDims];
  cudnnConvolutionMode_t mode;
  cudnnDataType_t compute;
  UCUDNN_CHECK_CUDNN(cudnnGetConvolutionNdDescriptor(desc, kMaxDims - 2, &length, pads, strides, dilations, &mode,
                                                     &compute));
  int groups = 1;
  cudnnMathType_t math;
  cudnnReorderType_t reorder;
  UCUDNN_CHECK_CUDNN(cudnnGetConvolutionGroupCount(desc, &groups));
  UCUDNN_CHECK_CUDNN(cudnnGetConvolutionMathType(desc, &math));
  UCUDNN_CHECK_CUDNN(cudnnGetConvolutionReorderType(desc, &reorder));
  out->mode = mode;
  out->compute_type = compute;
  out->group_count = groups;
  out->math_type = math;
  out->reorder_type = reorder;
  out->pads.assign(pads, pads + length);
  out->strides.assign(strides, strides + length);
  out->dilations.assign(dilations, dilations + length);
  return Status::success();
}

Status unsupported(const std::string& why) { return Error(ErrorCode::kNotSupported, why); }

}  // namespace

std::size_t element_size(int data_type) {
  switch (static_cast<cudnnDataType_t>(data_type)) {
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_INT64: return 8;
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_INT32: return 4;
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16: return 2;
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_UINT8:
    case CUDNN_DATA_FP8_E4M3:
    case CUDNN_DATA_FP8_E5M2: return 1;
    default: return 0;  // vectorized (INT8x4, INT8x32, ...) and sub-byte types are not split
  }
}

std::size_t extent_elements(const TensorLayout& layout) {
  std::size_t extent = 1;
  for (std::size_t i = 0; i < layout.dims.size(); ++i) {
    extent += static_cast<std::size_t>(layout.dims[i] - 1) * static_cast<std::size_t>(layout.strides[i]);
  }
  return extent;
}

Status read_conv_key(ConvOp op, int device, const ConvDescriptors& d, ConvKey* key) {
  if (!d.x || !d.w || !d.conv || !d.y) return Error(ErrorCode::kBadParam, "a descriptor is null");
  ConvKey k;
  k.op = op;
  k.device = device;
  UCUDNN_TRY(read_tensor(d.x, &k.x));
  UCUDNN_TRY(read_filter(d.w, &k.w));
  UCUDNN_TRY(read_convolution(d.conv, &k.conv));
  UCUDNN_TRY(read_tensor(d.y, &k.y));
  const std::size_t rank = k.x.dims.size();
  if (rank != 4 && rank != 5) return unsupported("only 4-d and 5-d tensors are split");
  if (k.y.dims.size() != rank || k.w.dims.size() != rank) return unsupported("tensor ranks differ");
  if (k.x.dims[0] <= 0 || k.x.dims[0] != k.y.dims[0]) return unsupported("input and output batch sizes differ");
  if (element_size(k.x.data_type) == 0 || element_size(k.y.data_type) == 0) {
    return unsupported("data type " + std::to_string(k.x.data_type) + " cannot be split along N");
  }
  *key = std::move(k);
  return Status::success();
}

Status make_tensor_descriptor(const TensorLayout& layout, TensorDescriptor* out) {
  cudnnTensorDescriptor_t raw = nullptr;
  UCUDNN_CHECK_CUDNN(cudnnCreateTensorDescriptor(&raw));
  TensorDescriptor owned(raw);
  UCUDNN_CHECK_CUDNN(cudnnSetTensorNdDescriptor(raw, static_cast<cudnnDataType_t>(layout.data_type),
                                                static_cast<int>(layout.dims.size()), layout.dims.data(),
                                                layout.strides.data()));
  *out = std::move(owned);
  return Status::success();
}

Status make_filter_descriptor(const FilterLayout& layout, FilterDescriptor* out) {
  cudnnFilterDescriptor_t raw = nullptr;
  UCUDNN_CHECK_CUDNN(cudnnCreateFilterDescriptor(&raw));
  FilterDescriptor owned(raw);
  UCUDNN_CHECK_CUDNN(cudnnSetFilterNdDescriptor(raw, static_cast<cudnnDataType_t>(layout.data_type),
                                                static_cast<cudnnTensorFormat_t>(layout.format),
                                                static_cast<int>(layout.dims.size()), layout.dims.data()));
  *out = std::move(owned);
  return Status::success();
}

Status make_convolution_descriptor(const ConvParams& p, int math_type, ConvolutionDescriptor* out) {
  cudnnConvolutionDescriptor_t raw = nullptr;
  UCUDNN_CHECK_CUDNN(cudnnCreateConvolutionDescriptor(&raw));
  ConvolutionDescriptor owned(raw);
  UCUDNN_CHECK_CUDNN(cudnnSetConvolutionNdDescriptor(raw, static_cast<int>(p.pads.size()), p.pads.data(),
                                                     p.strides.data(), p.dilations.data(),
                                                     static_cast<cudnnConvolutionMode_t>(p.mode),
                                                     static_cast<cudnnDataType_t>(p.compute_type)));
  UCUDNN_CHECK_CUDNN(cudnnSetConvolutionGroupCount(raw, p.group_count));
  UCUDNN_CHECK_CUDNN(cudnnSetConvolutionMathType(raw, static_cast<cudnnMathType_t>(math_type)));
  UCUDNN_CHECK_CUDNN(cudnnSetConvolutionReorderType(raw, static_cast<cudnnReorderType_t>(p.reorder_type)));
  *out = std::move(owned);
  return Status::success();
}

}  // namespace ucudnn::runtime
