#pragma once
/// \file intercepted_calls.h
/// The cuDNN calls ucudnn intercepts, written once. Each line is
///
///     X(name, (parameters after the handle), (their names, in order))
///
/// and every front-end is generated from these tables: the C functions u<name> declared in
/// ucudnn.h and defined in src/api/intercepted_calls.cpp, the inline UcudnnHandle_t overloads of
/// cuDNN's names in ucudnn.h that call them (with the names list), and the cuDNN-named
/// definitions of libucudnn_preload.so (src/preload/preload.cpp), whose pass-through call to the
/// real cuDNN function uses the names list too. Each call maps to the adapter of the same name in
/// src/api/call_adapters.h. Adding an intercepted call is one line here plus its adapter.
/// Text only, valid C and C++.
///
/// The tables are text only: expand them where cuDNN's types (and, for the cuDNN 7 calls,
/// ucudnn.h's preference enums) are declared. Strip a list's parentheses with UCUDNN_UNPAREN:
///
///     #define DECLARE(name, params, args) cudnnStatus_t name(UcudnnHandle_t handle, UCUDNN_UNPAREN params);
///     UCUDNN_INTERCEPTED_CALLS(DECLARE)

/// `UCUDNN_UNPAREN (a, b)` is `a, b`.
#define UCUDNN_UNPAREN(...) __VA_ARGS__

/// The calls both front-ends intercept: get/find/find-ex, workspace size and convolution for the
/// three operations. cuDNN 9 declares all of them; libucudnn_preload.so defines them all.
#define UCUDNN_INTERCEPTED_CALLS(X)                                                                                   \
  /* Forward */                                                                                                       \
  X(cudnnGetConvolutionForwardAlgorithm_v7,                                                                           \
    (const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,                                        \
     const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc, const int requestedAlgoCount,  \
     int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults),                                             \
    (xDesc, wDesc, convDesc, yDesc, requestedAlgoCount, returnedAlgoCount, perfResults))                              \
  X(cudnnFindConvolutionForwardAlgorithm,                                                                             \
    (const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,                                        \
     const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc, const int requestedAlgoCount,  \
     int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults),                                             \
    (xDesc, wDesc, convDesc, yDesc, requestedAlgoCount, returnedAlgoCount, perfResults))                              \
  X(cudnnFindConvolutionForwardAlgorithmEx,                                                                           \
    (const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnFilterDescriptor_t wDesc, const void* w,          \
     const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc, void* y,                       \
     const int requestedAlgoCount, int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults,                \
     void* workSpace, size_t workSpaceSizeInBytes),                                                                   \
    (xDesc, x, wDesc, w, convDesc, yDesc, y, requestedAlgoCount, returnedAlgoCount, perfResults, workSpace,           \
     workSpaceSizeInBytes))                                                                                           \
  X(cudnnGetConvolutionForwardWorkspaceSize,                                                                          \
    (const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,                                        \
     const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc,                                \
     cudnnConvolutionFwdAlgo_t algo, size_t* sizeInBytes),                                                            \
    (xDesc, wDesc, convDesc, yDesc, algo, sizeInBytes))                                                               \
  X(cudnnConvolutionForward,                                                                                          \
    (const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnFilterDescriptor_t wDesc,      \
     const void* w, const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo, void* workSpace,     \
     size_t workSpaceSizeInBytes, const void* beta, const cudnnTensorDescriptor_t yDesc, void* y),                    \
    (alpha, xDesc, x, wDesc, w, convDesc, algo, workSpace, workSpaceSizeInBytes, beta, yDesc, y))                     \
  /* Backward data */                                                                                                 \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7,                                                                      \
    (const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,                                       \
     const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, const int requestedAlgoCount, \
     int* returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t* perfResults),                                         \
    (wDesc, dyDesc, convDesc, dxDesc, requestedAlgoCount, returnedAlgoCount, perfResults))                            \
  X(cudnnFindConvolutionBackwardDataAlgorithm,                                                                        \
    (const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,                                       \
     const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, const int requestedAlgoCount, \
     int* returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t* perfResults),                                         \
    (wDesc, dyDesc, convDesc, dxDesc, requestedAlgoCount, returnedAlgoCount, perfResults))                            \
  X(cudnnFindConvolutionBackwardDataAlgorithmEx,                                                                      \
    (const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnTensorDescriptor_t dyDesc, const void* dy,        \
     const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, void* dx,                     \
     const int requestedAlgoCount, int* returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t* perfResults,            \
     void* workSpace, size_t workSpaceSizeInBytes),                                                                   \
    (wDesc, w, dyDesc, dy, convDesc, dxDesc, dx, requestedAlgoCount, returnedAlgoCount, perfResults, workSpace,       \
     workSpaceSizeInBytes))                                                                                           \
  X(cudnnGetConvolutionBackwardDataWorkspaceSize,                                                                     \
    (const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,                                       \
     const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc,                               \
     cudnnConvolutionBwdDataAlgo_t algo, size_t* sizeInBytes),                                                        \
    (wDesc, dyDesc, convDesc, dxDesc, algo, sizeInBytes))                                                             \
  X(cudnnConvolutionBackwardData,                                                                                     \
    (const void* alpha, const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnTensorDescriptor_t dyDesc,     \
     const void* dy, const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionBwdDataAlgo_t algo,                 \
     void* workSpace, size_t workSpaceSizeInBytes, const void* beta, const cudnnTensorDescriptor_t dxDesc, void* dx), \
    (alpha, wDesc, w, dyDesc, dy, convDesc, algo, workSpace, workSpaceSizeInBytes, beta, dxDesc, dx))                 \
  /* Backward filter */                                                                                               \
  X(cudnnGetConvolutionBackwardFilterAlgorithm_v7,                                                                    \
    (const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,                                       \
     const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, const int requestedAlgoCount, \
     int* returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t* perfResults),                                       \
    (xDesc, dyDesc, convDesc, dwDesc, requestedAlgoCount, returnedAlgoCount, perfResults))                            \
  X(cudnnFindConvolutionBackwardFilterAlgorithm,                                                                      \
    (const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,                                       \
     const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, const int requestedAlgoCount, \
     int* returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t* perfResults),                                       \
    (xDesc, dyDesc, convDesc, dwDesc, requestedAlgoCount, returnedAlgoCount, perfResults))                            \
  X(cudnnFindConvolutionBackwardFilterAlgorithmEx,                                                                    \
    (const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnTensorDescriptor_t dyDesc, const void* y,         \
     const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, void* dw,                     \
     const int requestedAlgoCount, int* returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t* perfResults,          \
     void* workSpace, size_t workSpaceSizeInBytes),                                                                   \
    (xDesc, x, dyDesc, y, convDesc, dwDesc, dw, requestedAlgoCount, returnedAlgoCount, perfResults, workSpace,        \
     workSpaceSizeInBytes))                                                                                           \
  X(cudnnGetConvolutionBackwardFilterWorkspaceSize,                                                                   \
    (const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,                                       \
     const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t gradDesc,                             \
     cudnnConvolutionBwdFilterAlgo_t algo, size_t* sizeInBytes),                                                      \
    (xDesc, dyDesc, convDesc, gradDesc, algo, sizeInBytes))                                                           \
  X(cudnnConvolutionBackwardFilter,                                                                                   \
    (const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnTensorDescriptor_t dyDesc,     \
     const void* dy, const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionBwdFilterAlgo_t algo,               \
     void* workSpace, size_t workSpaceSizeInBytes, const void* beta, const cudnnFilterDescriptor_t dwDesc, void* dw), \
    (alpha, xDesc, x, dyDesc, dy, convDesc, algo, workSpace, workSpaceSizeInBytes, beta, dwDesc, dw))

/// cuDNN 7's preference calls (removed in cuDNN 8): only the UcudnnHandle_t overloads have them,
/// for source written against cuDNN 6/7. cuDNN 9 has no such symbols, so the preload defines none.
#define UCUDNN_INTERCEPTED_CUDNN7_CALLS(X)                                                                            \
  X(cudnnGetConvolutionForwardAlgorithm,                                                                              \
    (const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,                                        \
     const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc,                                \
     cudnnConvolutionFwdPreference_t preference, size_t memoryLimitInBytes, cudnnConvolutionFwdAlgo_t* algo),         \
    (xDesc, wDesc, convDesc, yDesc, preference, memoryLimitInBytes, algo))                                            \
  X(cudnnGetConvolutionBackwardDataAlgorithm,                                                                         \
    (const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,                                       \
     const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc,                               \
     cudnnConvolutionBwdDataPreference_t preference, size_t memoryLimitInBytes, cudnnConvolutionBwdDataAlgo_t* algo), \
    (wDesc, dyDesc, convDesc, dxDesc, preference, memoryLimitInBytes, algo))                                          \
  X(cudnnGetConvolutionBackwardFilterAlgorithm,                                                                       \
    (const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,                                       \
     const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc,                               \
     cudnnConvolutionBwdFilterPreference_t preference, size_t memoryLimitInBytes,                                     \
     cudnnConvolutionBwdFilterAlgo_t* algo),                                                                          \
    (xDesc, dyDesc, convDesc, dwDesc, preference, memoryLimitInBytes, algo))
