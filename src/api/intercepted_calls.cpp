// The intercepted cuDNN calls with C linkage (ucudnnCreate, ucudnnConvolutionForward, ...),
// generated from the table of intercepted calls: each hands its arguments to its adapter
// (api/call_adapters.h), nothing more. The C++ overloads of cuDNN's names in ucudnn.h are inline
// calls of these.

#include "api/call_adapters.h"
#include "api/context.h"
#include "api/frontend.h"
#include "core/statistics.h"
#include "ucudnn/ucudnn.h"

using ucudnn::api::at_boundary;
using ucudnn::Error;
using ucudnn::ErrorCode;
using ucudnn::Status;

static_assert(UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED == 8 && UCUDNN_CONVOLUTION_BWD_DATA_ALGO_MICRO_BATCHED == 6 &&
                  UCUDNN_CONVOLUTION_BWD_FILTER_ALGO_MICRO_BATCHED == 7,
              "cuDNN's algorithm counts changed: update core/conv_op.cpp");

extern "C" {

cudnnHandle_t ucudnnGetCudnnHandle(const UcudnnContext* context) { return context ? context->cudnn() : nullptr; }

cudnnStatus_t ucudnnCreate(UcudnnHandle_t* handle) {
  const cudnnStatus_t status = at_boundary(__func__, [&]() -> Status {
    if (!handle) return Error(ErrorCode::kBadParam, "null handle pointer");
    UcudnnContext* context = nullptr;
    UCUDNN_TRY(ucudnn::api::create_context(&context));
    *handle = UcudnnHandle_t(context);
    return Status::success();
  });
  return ucudnn::api::report_failed_create(__func__, status);
}

cudnnStatus_t ucudnnDestroy(UcudnnHandle_t handle) {
  return at_boundary(__func__, [&]() -> Status { return ucudnn::api::destroy_context(handle.context); });
}

// The intercepted calls (ucudnn/intercepted_calls.h): each hands its arguments to its adapter.
// An adapter converts its own errors; the catch keeps anything thrown before that (its arguments'
// copies) from crossing the C boundary.
#define UCUDNN_DEFINE_C_CALL(name, params, args)                                                  \
  cudnnStatus_t u##name(UcudnnHandle_t handle, UCUDNN_UNPAREN params) {                           \
    try {                                                                                         \
      ucudnn::Statistics::instance().count_legacy_call();                                         \
      return ucudnn::api::adapters::name("u" #name, handle.context, handle, UCUDNN_UNPAREN args); \
    } catch (...) {                                                                               \
      return ucudnn::api::report_current_exception("u" #name);                                    \
    }                                                                                             \
  }
UCUDNN_INTERCEPTED_CALLS(UCUDNN_DEFINE_C_CALL)
UCUDNN_INTERCEPTED_CUDNN7_CALLS(UCUDNN_DEFINE_C_CALL)
#undef UCUDNN_DEFINE_C_CALL

}  // extern "C"
