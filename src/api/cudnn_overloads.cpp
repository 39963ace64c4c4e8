// The UcudnnHandle_t overloads of cuDNN's convolution API, generated from the table of
// intercepted calls: each hands its arguments to its adapter (api/call_adapters.h), nothing more.

#include "api/context.h"
#include "api/call_adapters.h"
#include "api/frontend.h"
#include "ucudnn/ucudnn.h"

using ucudnn::at_boundary;
using ucudnn::Error;
using ucudnn::ErrorCode;
using ucudnn::Status;

static_assert(UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED == 8 && UCUDNN_CONVOLUTION_BWD_DATA_ALGO_MICRO_BATCHED == 6 &&
                  UCUDNN_CONVOLUTION_BWD_FILTER_ALGO_MICRO_BATCHED == 7,
              "cuDNN's algorithm counts changed: update core/conv_op.cpp");

cudnnHandle_t ucudnnGetCudnnHandle(const UcudnnContext* context) { return context ? context->cudnn() : nullptr; }

cudnnStatus_t cudnnCreate(UcudnnHandle_t* handle) {
  return at_boundary("cudnnCreate", [&]() -> Status {
    if (!handle) return Error(ErrorCode::kBadParam, "null handle pointer");
    UcudnnContext* context = nullptr;
    UCUDNN_TRY(ucudnn::create_context(&context));
    *handle = UcudnnHandle_t(context);
    return Status::success();
  });
}

cudnnStatus_t cudnnDestroy(UcudnnHandle_t handle) {
  return at_boundary("cudnnDestroy", [&]() -> Status { return ucudnn::destroy_context(handle.context); });
}

// The intercepted calls (ucudnn/intercepted_calls.h): each hands its arguments to its adapter.
#define UCUDNN_DEFINE_HANDLE_OVERLOAD(name, params, args)                              \
  cudnnStatus_t name(UcudnnHandle_t handle, UCUDNN_UNPAREN params) {                   \
    return ucudnn::adapters::name(#name, handle.context, handle, UCUDNN_UNPAREN args); \
  }
UCUDNN_INTERCEPTED_CALLS(UCUDNN_DEFINE_HANDLE_OVERLOAD)
UCUDNN_INTERCEPTED_CUDNN7_CALLS(UCUDNN_DEFINE_HANDLE_OVERLOAD)
#undef UCUDNN_DEFINE_HANDLE_OVERLOAD
