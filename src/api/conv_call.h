#pragma once
// One convolution as the caller described it through the legacy API: what the front-end and the
// planner's requests (api/kernel_requests.h) both read.

#include "core/conv_op.h"
#include "runtime/descriptors.h"

namespace ucudnn::api {

/// One convolution as the caller described it.
struct ConvCall {
  ConvOp op;
  runtime::ConvDescriptors descriptors;
};

}  // namespace ucudnn::api
