// ConvKey read from real cuDNN descriptors (descriptor calls need no GPU): every field counts.

#include <gtest/gtest.h>

#include <functional>

#include "caller_descriptors.h"
#include "core/conv_key.h"
#include "runtime/descriptors.h"

namespace ucudnn {
using runtime::ConvDescriptors;
using runtime::element_size;
using runtime::extent_elements;
using runtime::read_conv_key;
using runtime::to_cudnn_status;
namespace {

struct Layer {
  int n = 32, c = 64, h = 28, w = 28, k = 128, r = 3, s = 3;
  int pad = 1, stride = 1, dilation = 1, groups = 1;
  cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
};

// Builds the descriptors of a layer and reads its key.
ConvKey key_of(const Layer& l, ConvOp op = ConvOp::kForward, int device = 0) {
  testing::CallerDescriptors d;
  EXPECT_EQ(cudnnSetTensor4dDescriptor(d.x, l.format, l.type, l.n, l.c, l.h, l.w), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetFilter4dDescriptor(d.w, l.type, l.format, l.k, l.c / l.groups, l.r, l.s), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetConvolution2dDescriptor(d.conv, l.pad, l.pad, l.stride, l.stride, l.dilation, l.dilation,
                                            CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetConvolutionGroupCount(d.conv, l.groups), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetConvolutionMathType(d.conv, l.math), CUDNN_STATUS_SUCCESS);
  int n, c, h, wd;
  EXPECT_EQ(cudnnGetConvolution2dForwardOutputDim(d.conv, d.x, d.w, &n, &c, &h, &wd), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetTensor4dDescriptor(d.y, l.format, l.type, n, c, h, wd), CUDNN_STATUS_SUCCESS);
  return d.key(op, device);
}

TEST(ConvKey, IdenticalLayersGiveEqualKeysAndHashes) {
  const ConvKey a = key_of(Layer{});
  const ConvKey b = key_of(Layer{});
  EXPECT_EQ(a, b);
  EXPECT_EQ(ConvKeyHash()(a), ConvKeyHash()(b));
  EXPECT_EQ(a.to_string(), b.to_string());
  EXPECT_EQ(a.batch(), 32);
}

TEST(ConvKey, LayersDifferingInOneFieldAreDifferentKeys) {
  const ConvKey base = key_of(Layer{});
  const std::vector<std::pair<const char*, std::function<void(Layer&)>>> changes = {
      {"stride", [](Layer& l) { l.stride = 2; }},
      {"pad", [](Layer& l) { l.pad = 0; }},
      {"dilation", [](Layer& l) { l.dilation = 2; }},
      {"groups", [](Layer& l) { l.groups = 2; }},
      {"layout", [](Layer& l) { l.format = CUDNN_TENSOR_NHWC; }},
      {"math type", [](Layer& l) { l.math = CUDNN_FMA_MATH; }},
      {"data type", [](Layer& l) { l.type = CUDNN_DATA_HALF; }},
      {"batch", [](Layer& l) { l.n = 16; }},
      {"channels", [](Layer& l) { l.c = 32; }},
      {"filter size", [](Layer& l) { l.r = l.s = 5; }},
  };
  for (const auto& change : changes) {
    Layer layer;
    change.second(layer);
    const ConvKey other = key_of(layer);
    EXPECT_NE(base, other) << change.first;
    EXPECT_NE(base.to_string(), other.to_string()) << change.first;
    EXPECT_NE(ConvKeyHash()(base), ConvKeyHash()(other)) << change.first;
  }
  EXPECT_NE(base, key_of(Layer{}, ConvOp::kBackwardData));
  EXPECT_NE(base, key_of(Layer{}, ConvOp::kForward, 1));
}

TEST(ConvKey, MicroBatchKeyKeepsStridesAndChangesOnlyN) {
  Layer layer;
  layer.format = CUDNN_TENSOR_NHWC;
  const ConvKey full = key_of(layer);
  const ConvKey micro = full.with_batch(4);
  EXPECT_EQ(micro.batch(), 4);
  EXPECT_EQ(micro.y.dims[0], 4);
  EXPECT_EQ(micro.x.strides, full.x.strides);
  EXPECT_EQ(micro.x.dims[1], full.x.dims[1]);
  EXPECT_NE(micro, full);
  layer.n = 4;
  EXPECT_EQ(micro, key_of(layer)) << "a micro-batch key equals the key of a real layer of that batch";
}

TEST(ConvKey, UnsplittableDescriptorsAreRefused) {
  cudnnTensorDescriptor_t x;
  ASSERT_EQ(cudnnCreateTensorDescriptor(&x), CUDNN_STATUS_SUCCESS);
  ConvKey key;
  EXPECT_EQ(to_cudnn_status(read_conv_key(ConvOp::kForward, 0, ConvDescriptors{x, nullptr, nullptr, x}, &key)),
            CUDNN_STATUS_BAD_PARAM);
  cudnnDestroyTensorDescriptor(x);
}

TEST(ConvKey, ExtentCoversStridedTensors) {
  TensorLayout t;
  t.dims = {2, 3, 4, 5};
  t.strides = {80, 20, 5, 1};  // one spare plane of 20 elements per sample
  EXPECT_EQ(extent_elements(t), 1u + 80 + 2 * 20 + 3 * 5 + 4);
  EXPECT_EQ(element_size(CUDNN_DATA_HALF), 2u);
  EXPECT_EQ(element_size(CUDNN_DATA_INT8x32), 0u);
}

}  // namespace
}  // namespace ucudnn
