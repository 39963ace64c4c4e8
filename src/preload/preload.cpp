// libucudnn_preload.so: cuDNN's handle and convolution calls under cuDNN's own names, for programs
// that cannot be changed (LD_PRELOAD=libucudnn_preload.so). The dynamic linker puts these
// definitions ahead of libcudnn.so.9's. Each maps the program's real cudnnHandle_t to the library
// state made for it at cudnnCreate and calls the same adapters as the UcudnnHandle_t overloads:
// this file holds no planning logic. Calls on handles it did not create, and ucudnn's own calls to
// cuDNN (in_internal_call), go to the real function, found with dlsym(RTLD_NEXT).

#include <cudnn.h>
#include <dlfcn.h>

#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "api/call_adapters.h"
#include "api/context.h"
#include "api/frontend.h"
#include "core/internal_call.h"

using ucudnn::ConvBuffers;
using ucudnn::Error;
using ucudnn::ErrorCode;
using namespace ucudnn::adapters;

namespace {

// The real cuDNN function `name`, looked up once. Null (and one message) if cuDNN is not loaded.
template <typename Function>
Function real(const char* name) {
  void* symbol = dlsym(RTLD_NEXT, name);
  if (!symbol) {
    if (void* cudnn = dlopen("libcudnn.so.9", RTLD_LAZY | RTLD_NOLOAD)) symbol = dlsym(cudnn, name);
  }
  if (!symbol) std::fprintf(stderr, "ucudnn preload: error: cannot find cuDNN's %s\n", name);
  return reinterpret_cast<Function>(symbol);
}

#define UCUDNN_REAL(function)                                                          \
  static const auto real_function = real<decltype(&function)>(#function);              \
  if (!real_function) return CUDNN_STATUS_NOT_INITIALIZED

// The programs' handles and the state ucudnn keeps for each. Lookups far outnumber changes.
class Handles {
 public:
  static Handles& instance() {
    static Handles* handles = new Handles();  // never destroyed: calls may come during exit
    return *handles;
  }
  UcudnnContext* find(cudnnHandle_t handle) const {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    auto it = contexts_.find(handle);
    return it == contexts_.end() ? nullptr : it->second;
  }
  void add(UcudnnContext* context) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    contexts_[context->cudnn] = context;
  }
  UcudnnContext* remove(cudnnHandle_t handle) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    auto it = contexts_.find(handle);
    if (it == contexts_.end()) return nullptr;
    UcudnnContext* context = it->second;
    contexts_.erase(it);
    return context;
  }

 private:
  mutable std::shared_mutex mutex_;
  std::unordered_map<cudnnHandle_t, UcudnnContext*> contexts_;
};

// The context of a program's handle, or null when the call is ucudnn's own or the handle is not
// one this layer made: then the caller passes the call through.
UcudnnContext* intercepted(cudnnHandle_t handle) {
  if (ucudnn::in_internal_call()) return nullptr;
  return Handles::instance().find(handle);
}

}  // namespace

extern "C" {

cudnnStatus_t cudnnCreate(cudnnHandle_t* handle) {
  UCUDNN_REAL(cudnnCreate);
  if (ucudnn::in_internal_call()) return real_function(handle);
  return ucudnn::at_boundary("cudnnCreate", [&]() -> ucudnn::Status {
    if (!handle) return ucudnn::Error(ErrorCode::kBadParam, "null handle pointer");
    UcudnnContext* context = nullptr;
    UCUDNN_TRY(ucudnn::create_context(&context));
    Handles::instance().add(context);
    *handle = context->cudnn;
    return ucudnn::Status::success();
  });
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  UCUDNN_REAL(cudnnDestroy);
  if (ucudnn::in_internal_call()) return real_function(handle);
  UcudnnContext* context = Handles::instance().remove(handle);
  if (!context) return real_function(handle);
  return ucudnn::at_boundary("cudnnDestroy", [&]() { return ucudnn::destroy_context(context); });
}

// ---- Forward ------------------------------------------------------------------------------

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                     const cudnnFilterDescriptor_t wDesc,
                                                     const cudnnConvolutionDescriptor_t convDesc,
                                                     const cudnnTensorDescriptor_t yDesc, const int requestedAlgoCount,
                                                     int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  UCUDNN_REAL(cudnnGetConvolutionForwardAlgorithm_v7);
  UcudnnContext* context = intercepted(handle);
  if (!context) {
    return real_function(handle, xDesc, wDesc, convDesc, yDesc, requestedAlgoCount, returnedAlgoCount, perfResults);
  }
  const auto call = forward_call(xDesc, wDesc, convDesc, yDesc);
  return choose(__func__, context, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_get(handle, call));
}

cudnnStatus_t cudnnFindConvolutionForwardAlgorithm(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                   const cudnnFilterDescriptor_t wDesc,
                                                   const cudnnConvolutionDescriptor_t convDesc,
                                                   const cudnnTensorDescriptor_t yDesc, const int requestedAlgoCount,
                                                   int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  UCUDNN_REAL(cudnnFindConvolutionForwardAlgorithm);
  UcudnnContext* context = intercepted(handle);
  if (!context) {
    return real_function(handle, xDesc, wDesc, convDesc, yDesc, requestedAlgoCount, returnedAlgoCount, perfResults);
  }
  const auto call = forward_call(xDesc, wDesc, convDesc, yDesc);
  return choose(__func__, context, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find(handle, call));
}

cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                     const void* x, const cudnnFilterDescriptor_t wDesc, const void* w,
                                                     const cudnnConvolutionDescriptor_t convDesc,
                                                     const cudnnTensorDescriptor_t yDesc, void* y,
                                                     const int requestedAlgoCount, int* returnedAlgoCount,
                                                     cudnnConvolutionFwdAlgoPerf_t* perfResults, void* workSpace,
                                                     size_t workSpaceSizeInBytes) {
  UCUDNN_REAL(cudnnFindConvolutionForwardAlgorithmEx);
  UcudnnContext* context = intercepted(handle);
  if (!context) {
    return real_function(handle, xDesc, x, wDesc, w, convDesc, yDesc, y, requestedAlgoCount, returnedAlgoCount,
                         perfResults, workSpace, workSpaceSizeInBytes);
  }
  const auto call = forward_call(xDesc, wDesc, convDesc, yDesc);
  const ConvBuffers buffers{mutable_ptr(x), mutable_ptr(w), y};
  return choose(__func__, context, call, workSpaceSizeInBytes, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find_ex(handle, call, buffers, workSpace, workSpaceSizeInBytes));
}

cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                      const cudnnFilterDescriptor_t wDesc,
                                                      const cudnnConvolutionDescriptor_t convDesc,
                                                      const cudnnTensorDescriptor_t yDesc,
                                                      cudnnConvolutionFwdAlgo_t algo, size_t* sizeInBytes) {
  UCUDNN_REAL(cudnnGetConvolutionForwardWorkspaceSize);
  UcudnnContext* context = intercepted(handle);
  if (!context) return real_function(handle, xDesc, wDesc, convDesc, yDesc, algo, sizeInBytes);
  return workspace(__func__, context, forward_call(xDesc, wDesc, convDesc, yDesc), algo, sizeInBytes);
}

cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t xDesc,
                                      const void* x, const cudnnFilterDescriptor_t wDesc, const void* w,
                                      const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo,
                                      void* workSpace, size_t workSpaceSizeInBytes, const void* beta,
                                      const cudnnTensorDescriptor_t yDesc, void* y) {
  UCUDNN_REAL(cudnnConvolutionForward);
  UcudnnContext* context = intercepted(handle);
  if (!context) {
    return real_function(handle, alpha, xDesc, x, wDesc, w, convDesc, algo, workSpace, workSpaceSizeInBytes, beta,
                         yDesc, y);
  }
  return run(__func__, context, forward_call(xDesc, wDesc, convDesc, yDesc), algo, alpha,
             ConvBuffers{mutable_ptr(x), mutable_ptr(w), y}, workSpace, workSpaceSizeInBytes, beta);
}

// ---- Backward data ------------------------------------------------------------------------

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                          const cudnnTensorDescriptor_t dyDesc,
                                                          const cudnnConvolutionDescriptor_t convDesc,
                                                          const cudnnTensorDescriptor_t dxDesc,
                                                          const int requestedAlgoCount, int* returnedAlgoCount,
                                                          cudnnConvolutionBwdDataAlgoPerf_t* perfResults) {
  UCUDNN_REAL(cudnnGetConvolutionBackwardDataAlgorithm_v7);
  UcudnnContext* context = intercepted(handle);
  if (!context) {
    return real_function(handle, wDesc, dyDesc, convDesc, dxDesc, requestedAlgoCount, returnedAlgoCount,
                         perfResults);
  }
  const auto call = backward_data_call(wDesc, dyDesc, convDesc, dxDesc);
  return choose(__func__, context, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_get(handle, call));
}

cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithm(cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                        const cudnnTensorDescriptor_t dyDesc,
                                                        const cudnnConvolutionDescriptor_t convDesc,
                                                        const cudnnTensorDescriptor_t dxDesc,
                                                        const int requestedAlgoCount, int* returnedAlgoCount,
                                                        cudnnConvolutionBwdDataAlgoPerf_t* perfResults) {
  UCUDNN_REAL(cudnnFindConvolutionBackwardDataAlgorithm);
  UcudnnContext* context = intercepted(handle);
  if (!context) {
    return real_function(handle, wDesc, dyDesc, convDesc, dxDesc, requestedAlgoCount, returnedAlgoCount,
                         perfResults);
  }
  const auto call = backward_data_call(wDesc, dyDesc, convDesc, dxDesc);
  return choose(__func__, context, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find(handle, call));
}

cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnTensorDescriptor_t dyDesc,
    const void* dy, const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, void* dx,
    const int requestedAlgoCount, int* returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t* perfResults,
    void* workSpace, size_t workSpaceSizeInBytes) {
  UCUDNN_REAL(cudnnFindConvolutionBackwardDataAlgorithmEx);
  UcudnnContext* context = intercepted(handle);
  if (!context) {
    return real_function(handle, wDesc, w, dyDesc, dy, convDesc, dxDesc, dx, requestedAlgoCount, returnedAlgoCount,
                         perfResults, workSpace, workSpaceSizeInBytes);
  }
  const auto call = backward_data_call(wDesc, dyDesc, convDesc, dxDesc);
  const ConvBuffers buffers{dx, mutable_ptr(w), mutable_ptr(dy)};
  return choose(__func__, context, call, workSpaceSizeInBytes, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find_ex(handle, call, buffers, workSpace, workSpaceSizeInBytes));
}

cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                           const cudnnTensorDescriptor_t dyDesc,
                                                           const cudnnConvolutionDescriptor_t convDesc,
                                                           const cudnnTensorDescriptor_t dxDesc,
                                                           cudnnConvolutionBwdDataAlgo_t algo, size_t* sizeInBytes) {
  UCUDNN_REAL(cudnnGetConvolutionBackwardDataWorkspaceSize);
  UcudnnContext* context = intercepted(handle);
  if (!context) return real_function(handle, wDesc, dyDesc, convDesc, dxDesc, algo, sizeInBytes);
  return workspace(__func__, context, backward_data_call(wDesc, dyDesc, convDesc, dxDesc), algo, sizeInBytes);
}

cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t handle, const void* alpha, const cudnnFilterDescriptor_t wDesc,
                                           const void* w, const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                           const cudnnConvolutionDescriptor_t convDesc,
                                           cudnnConvolutionBwdDataAlgo_t algo, void* workSpace,
                                           size_t workSpaceSizeInBytes, const void* beta,
                                           const cudnnTensorDescriptor_t dxDesc, void* dx) {
  UCUDNN_REAL(cudnnConvolutionBackwardData);
  UcudnnContext* context = intercepted(handle);
  if (!context) {
    return real_function(handle, alpha, wDesc, w, dyDesc, dy, convDesc, algo, workSpace, workSpaceSizeInBytes, beta,
                         dxDesc, dx);
  }
  return run(__func__, context, backward_data_call(wDesc, dyDesc, convDesc, dxDesc), algo, alpha,
             ConvBuffers{dx, mutable_ptr(w), mutable_ptr(dy)}, workSpace, workSpaceSizeInBytes, beta);
}

// ---- Backward filter ----------------------------------------------------------------------

cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                            const cudnnTensorDescriptor_t dyDesc,
                                                            const cudnnConvolutionDescriptor_t convDesc,
                                                            const cudnnFilterDescriptor_t dwDesc,
                                                            const int requestedAlgoCount, int* returnedAlgoCount,
                                                            cudnnConvolutionBwdFilterAlgoPerf_t* perfResults) {
  UCUDNN_REAL(cudnnGetConvolutionBackwardFilterAlgorithm_v7);
  UcudnnContext* context = intercepted(handle);
  if (!context) {
    return real_function(handle, xDesc, dyDesc, convDesc, dwDesc, requestedAlgoCount, returnedAlgoCount,
                         perfResults);
  }
  const auto call = backward_filter_call(xDesc, dyDesc, convDesc, dwDesc);
  return choose(__func__, context, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_get(handle, call));
}

cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithm(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                          const cudnnTensorDescriptor_t dyDesc,
                                                          const cudnnConvolutionDescriptor_t convDesc,
                                                          const cudnnFilterDescriptor_t dwDesc,
                                                          const int requestedAlgoCount, int* returnedAlgoCount,
                                                          cudnnConvolutionBwdFilterAlgoPerf_t* perfResults) {
  UCUDNN_REAL(cudnnFindConvolutionBackwardFilterAlgorithm);
  UcudnnContext* context = intercepted(handle);
  if (!context) {
    return real_function(handle, xDesc, dyDesc, convDesc, dwDesc, requestedAlgoCount, returnedAlgoCount,
                         perfResults);
  }
  const auto call = backward_filter_call(xDesc, dyDesc, convDesc, dwDesc);
  return choose(__func__, context, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find(handle, call));
}

cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnTensorDescriptor_t dyDesc,
    const void* y, const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, void* dw,
    const int requestedAlgoCount, int* returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t* perfResults,
    void* workSpace, size_t workSpaceSizeInBytes) {
  UCUDNN_REAL(cudnnFindConvolutionBackwardFilterAlgorithmEx);
  UcudnnContext* context = intercepted(handle);
  if (!context) {
    return real_function(handle, xDesc, x, dyDesc, y, convDesc, dwDesc, dw, requestedAlgoCount, returnedAlgoCount,
                         perfResults, workSpace, workSpaceSizeInBytes);
  }
  const auto call = backward_filter_call(xDesc, dyDesc, convDesc, dwDesc);
  const ConvBuffers buffers{mutable_ptr(x), dw, mutable_ptr(y)};
  return choose(__func__, context, call, workSpaceSizeInBytes, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find_ex(handle, call, buffers, workSpace, workSpaceSizeInBytes));
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                             const cudnnTensorDescriptor_t dyDesc,
                                                             const cudnnConvolutionDescriptor_t convDesc,
                                                             const cudnnFilterDescriptor_t gradDesc,
                                                             cudnnConvolutionBwdFilterAlgo_t algo,
                                                             size_t* sizeInBytes) {
  UCUDNN_REAL(cudnnGetConvolutionBackwardFilterWorkspaceSize);
  UcudnnContext* context = intercepted(handle);
  if (!context) return real_function(handle, xDesc, dyDesc, convDesc, gradDesc, algo, sizeInBytes);
  return workspace(__func__, context, backward_filter_call(xDesc, dyDesc, convDesc, gradDesc), algo, sizeInBytes);
}

cudnnStatus_t cudnnConvolutionBackwardFilter(cudnnHandle_t handle, const void* alpha,
                                             const cudnnTensorDescriptor_t xDesc, const void* x,
                                             const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                             const cudnnConvolutionDescriptor_t convDesc,
                                             cudnnConvolutionBwdFilterAlgo_t algo, void* workSpace,
                                             size_t workSpaceSizeInBytes, const void* beta,
                                             const cudnnFilterDescriptor_t dwDesc, void* dw) {
  UCUDNN_REAL(cudnnConvolutionBackwardFilter);
  UcudnnContext* context = intercepted(handle);
  if (!context) {
    return real_function(handle, alpha, xDesc, x, dyDesc, dy, convDesc, algo, workSpace, workSpaceSizeInBytes, beta,
                         dwDesc, dw);
  }
  return run(__func__, context, backward_filter_call(xDesc, dyDesc, convDesc, dwDesc), algo, alpha,
             ConvBuffers{mutable_ptr(x), dw, mutable_ptr(dy)}, workSpace, workSpaceSizeInBytes, beta);
}

}  // extern "C"
