#pragma once
// The four cuDNN descriptors of a convolution as a caller makes them (descriptor calls need no GPU),
// and the key the library reads from them.

#include <cudnn.h>
#include <gtest/gtest.h>

#include "core/conv_key.h"
#include "runtime/descriptors.h"

namespace ucudnn::testing {

/// Created empty for the test to set; destroyed with the struct.
struct CallerDescriptors {
  CallerDescriptors() {
    EXPECT_EQ(cudnnCreateTensorDescriptor(&x), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnCreateTensorDescriptor(&y), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnCreateFilterDescriptor(&w), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnCreateConvolutionDescriptor(&conv), CUDNN_STATUS_SUCCESS);
  }
  ~CallerDescriptors() {
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyConvolutionDescriptor(conv);
  }
  CallerDescriptors(const CallerDescriptors&) = delete;
  CallerDescriptors& operator=(const CallerDescriptors&) = delete;

  /// The key of `op` on `device`, read as the library reads a caller's descriptors.
  ConvKey key(ConvOp op, int device = 0) const {
    ConvKey key;
    const Status status = runtime::read_conv_key(op, device, runtime::ConvDescriptors{x, w, conv, y}, &key);
    EXPECT_TRUE(status.ok()) << status.message();
    return key;
  }

  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
};

}  // namespace ucudnn::testing
