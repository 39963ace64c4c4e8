// The UcudnnHandle_t overloads of cuDNN's convolution API: each maps its arguments to the
// op-generic front-end and nothing more.

#include "api/context.h"
#include "api/call_adapters.h"
#include "api/frontend.h"
#include "ucudnn/ucudnn.h"

using ucudnn::at_boundary;
using ucudnn::ConvBuffers;
using ucudnn::ConvCall;
using ucudnn::Error;
using ucudnn::ErrorCode;
using ucudnn::Status;
using namespace ucudnn::adapters;

static_assert(UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED == 8 && UCUDNN_CONVOLUTION_BWD_DATA_ALGO_MICRO_BATCHED == 6 &&
                  UCUDNN_CONVOLUTION_BWD_FILTER_ALGO_MICRO_BATCHED == 7,
              "cuDNN's algorithm counts changed: update core/conv_op.cpp");


cudnnHandle_t ucudnnGetCudnnHandle(const UcudnnContext* context) { return context ? context->cudnn : nullptr; }

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

// ---- Forward ------------------------------------------------------------------------------

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                     const cudnnFilterDescriptor_t wDesc,
                                                     const cudnnConvolutionDescriptor_t convDesc,
                                                     const cudnnTensorDescriptor_t yDesc, const int requestedAlgoCount,
                                                     int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  const ConvCall call = forward_call(xDesc, wDesc, convDesc, yDesc);
  return choose(__func__, handle.context, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_get(handle, call));
}

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm(UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                  const cudnnFilterDescriptor_t wDesc,
                                                  const cudnnConvolutionDescriptor_t convDesc,
                                                  const cudnnTensorDescriptor_t yDesc,
                                                  cudnnConvolutionFwdPreference_t preference, size_t memoryLimitInBytes,
                                                  cudnnConvolutionFwdAlgo_t* algo) {
  return choose_one(__func__, handle.context, forward_call(xDesc, wDesc, convDesc, yDesc), preference, memoryLimitInBytes,
                    algo);
}

cudnnStatus_t cudnnFindConvolutionForwardAlgorithm(UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                   const cudnnFilterDescriptor_t wDesc,
                                                   const cudnnConvolutionDescriptor_t convDesc,
                                                   const cudnnTensorDescriptor_t yDesc, const int requestedAlgoCount,
                                                   int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  const ConvCall call = forward_call(xDesc, wDesc, convDesc, yDesc);
  return choose(__func__, handle.context, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find(handle, call));
}

cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                     const void* x, const cudnnFilterDescriptor_t wDesc, const void* w,
                                                     const cudnnConvolutionDescriptor_t convDesc,
                                                     const cudnnTensorDescriptor_t yDesc, void* y,
                                                     const int requestedAlgoCount, int* returnedAlgoCount,
                                                     cudnnConvolutionFwdAlgoPerf_t* perfResults, void* workSpace,
                                                     size_t workSpaceSizeInBytes) {
  const ConvCall call = forward_call(xDesc, wDesc, convDesc, yDesc);
  const ConvBuffers buffers{mutable_ptr(x), mutable_ptr(w), y};
  return choose(__func__, handle.context, call, workSpaceSizeInBytes, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find_ex(handle, call, buffers, workSpace, workSpaceSizeInBytes));
}

cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                      const cudnnFilterDescriptor_t wDesc,
                                                      const cudnnConvolutionDescriptor_t convDesc,
                                                      const cudnnTensorDescriptor_t yDesc,
                                                      cudnnConvolutionFwdAlgo_t algo, size_t* sizeInBytes) {
  return workspace(__func__, handle.context, forward_call(xDesc, wDesc, convDesc, yDesc), algo, sizeInBytes);
}

cudnnStatus_t cudnnConvolutionForward(UcudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t xDesc,
                                      const void* x, const cudnnFilterDescriptor_t wDesc, const void* w,
                                      const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo,
                                      void* workSpace, size_t workSpaceSizeInBytes, const void* beta,
                                      const cudnnTensorDescriptor_t yDesc, void* y) {
  return run(__func__, handle.context, forward_call(xDesc, wDesc, convDesc, yDesc), algo, alpha,
             ConvBuffers{mutable_ptr(x), mutable_ptr(w), y}, workSpace, workSpaceSizeInBytes, beta);
}

// ---- Backward data ------------------------------------------------------------------------

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(UcudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                          const cudnnTensorDescriptor_t dyDesc,
                                                          const cudnnConvolutionDescriptor_t convDesc,
                                                          const cudnnTensorDescriptor_t dxDesc,
                                                          const int requestedAlgoCount, int* returnedAlgoCount,
                                                          cudnnConvolutionBwdDataAlgoPerf_t* perfResults) {
  const ConvCall call = backward_data_call(wDesc, dyDesc, convDesc, dxDesc);
  return choose(__func__, handle.context, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_get(handle, call));
}

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm(UcudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                       const cudnnTensorDescriptor_t dyDesc,
                                                       const cudnnConvolutionDescriptor_t convDesc,
                                                       const cudnnTensorDescriptor_t dxDesc,
                                                       cudnnConvolutionBwdDataPreference_t preference,
                                                       size_t memoryLimitInBytes, cudnnConvolutionBwdDataAlgo_t* algo) {
  return choose_one(__func__, handle.context, backward_data_call(wDesc, dyDesc, convDesc, dxDesc), preference,
                    memoryLimitInBytes, algo);
}

cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithm(UcudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                        const cudnnTensorDescriptor_t dyDesc,
                                                        const cudnnConvolutionDescriptor_t convDesc,
                                                        const cudnnTensorDescriptor_t dxDesc,
                                                        const int requestedAlgoCount, int* returnedAlgoCount,
                                                        cudnnConvolutionBwdDataAlgoPerf_t* perfResults) {
  const ConvCall call = backward_data_call(wDesc, dyDesc, convDesc, dxDesc);
  return choose(__func__, handle.context, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find(handle, call));
}

cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(
    UcudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnTensorDescriptor_t dyDesc,
    const void* dy, const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, void* dx,
    const int requestedAlgoCount, int* returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t* perfResults,
    void* workSpace, size_t workSpaceSizeInBytes) {
  const ConvCall call = backward_data_call(wDesc, dyDesc, convDesc, dxDesc);
  const ConvBuffers buffers{dx, mutable_ptr(w), mutable_ptr(dy)};
  return choose(__func__, handle.context, call, workSpaceSizeInBytes, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find_ex(handle, call, buffers, workSpace, workSpaceSizeInBytes));
}

cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(UcudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                           const cudnnTensorDescriptor_t dyDesc,
                                                           const cudnnConvolutionDescriptor_t convDesc,
                                                           const cudnnTensorDescriptor_t dxDesc,
                                                           cudnnConvolutionBwdDataAlgo_t algo, size_t* sizeInBytes) {
  return workspace(__func__, handle.context, backward_data_call(wDesc, dyDesc, convDesc, dxDesc), algo, sizeInBytes);
}

cudnnStatus_t cudnnConvolutionBackwardData(UcudnnHandle_t handle, const void* alpha,
                                           const cudnnFilterDescriptor_t wDesc, const void* w,
                                           const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                           const cudnnConvolutionDescriptor_t convDesc,
                                           cudnnConvolutionBwdDataAlgo_t algo, void* workSpace,
                                           size_t workSpaceSizeInBytes, const void* beta,
                                           const cudnnTensorDescriptor_t dxDesc, void* dx) {
  return run(__func__, handle.context, backward_data_call(wDesc, dyDesc, convDesc, dxDesc), algo, alpha,
             ConvBuffers{dx, mutable_ptr(w), mutable_ptr(dy)}, workSpace, workSpaceSizeInBytes, beta);
}

// ---- Backward filter ----------------------------------------------------------------------

cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                            const cudnnTensorDescriptor_t dyDesc,
                                                            const cudnnConvolutionDescriptor_t convDesc,
                                                            const cudnnFilterDescriptor_t dwDesc,
                                                            const int requestedAlgoCount, int* returnedAlgoCount,
                                                            cudnnConvolutionBwdFilterAlgoPerf_t* perfResults) {
  const ConvCall call = backward_filter_call(xDesc, dyDesc, convDesc, dwDesc);
  return choose(__func__, handle.context, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_get(handle, call));
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm(UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                         const cudnnTensorDescriptor_t dyDesc,
                                                         const cudnnConvolutionDescriptor_t convDesc,
                                                         const cudnnFilterDescriptor_t dwDesc,
                                                         cudnnConvolutionBwdFilterPreference_t preference,
                                                         size_t memoryLimitInBytes,
                                                         cudnnConvolutionBwdFilterAlgo_t* algo) {
  return choose_one(__func__, handle.context, backward_filter_call(xDesc, dyDesc, convDesc, dwDesc), preference,
                    memoryLimitInBytes, algo);
}

cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithm(UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                          const cudnnTensorDescriptor_t dyDesc,
                                                          const cudnnConvolutionDescriptor_t convDesc,
                                                          const cudnnFilterDescriptor_t dwDesc,
                                                          const int requestedAlgoCount, int* returnedAlgoCount,
                                                          cudnnConvolutionBwdFilterAlgoPerf_t* perfResults) {
  const ConvCall call = backward_filter_call(xDesc, dyDesc, convDesc, dwDesc);
  return choose(__func__, handle.context, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find(handle, call));
}

cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(
    UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnTensorDescriptor_t dyDesc,
    const void* y, const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, void* dw,
    const int requestedAlgoCount, int* returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t* perfResults,
    void* workSpace, size_t workSpaceSizeInBytes) {
  const ConvCall call = backward_filter_call(xDesc, dyDesc, convDesc, dwDesc);
  const ConvBuffers buffers{mutable_ptr(x), dw, mutable_ptr(y)};
  return choose(__func__, handle.context, call, workSpaceSizeInBytes, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find_ex(handle, call, buffers, workSpace, workSpaceSizeInBytes));
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(UcudnnHandle_t handle,
                                                             const cudnnTensorDescriptor_t xDesc,
                                                             const cudnnTensorDescriptor_t dyDesc,
                                                             const cudnnConvolutionDescriptor_t convDesc,
                                                             const cudnnFilterDescriptor_t gradDesc,
                                                             cudnnConvolutionBwdFilterAlgo_t algo, size_t* sizeInBytes) {
  return workspace(__func__, handle.context, backward_filter_call(xDesc, dyDesc, convDesc, gradDesc), algo, sizeInBytes);
}

cudnnStatus_t cudnnConvolutionBackwardFilter(UcudnnHandle_t handle, const void* alpha,
                                             const cudnnTensorDescriptor_t xDesc, const void* x,
                                             const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                             const cudnnConvolutionDescriptor_t convDesc,
                                             cudnnConvolutionBwdFilterAlgo_t algo, void* workSpace,
                                             size_t workSpaceSizeInBytes, const void* beta,
                                             const cudnnFilterDescriptor_t dwDesc, void* dw) {
  return run(__func__, handle.context, backward_filter_call(xDesc, dyDesc, convDesc, dwDesc), algo, alpha,
             ConvBuffers{mutable_ptr(x), dw, mutable_ptr(dy)}, workSpace, workSpaceSizeInBytes, beta);
}
