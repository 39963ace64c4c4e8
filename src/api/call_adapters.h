#pragma once
// cuDNN's convolution calls in the shape of the front-end: one adapter per intercepted call
// (ucudnn/intercepted_calls.h), named after it, taking
//   (const char* function, UcudnnContext* context, cudnnHandle_t raw, <the call's parameters>)
// where `raw` is the cuDNN handle of `context` (null when the context is). Each front-end (the
// UcudnnHandle_t overloads, the LD_PRELOAD layer) is generated from the table: it finds its
// UcudnnContext and calls these, nothing more. A null context is refused by the op-generic
// front-end (api/frontend.cpp), which every adapter reaches before using the context.

#include <cudnn.h>

#include <optional>
#include <vector>

#include "api/context.h"
#include "api/frontend.h"
#include "ucudnn/intercepted_calls.h"
#include "ucudnn/ucudnn.h"

namespace ucudnn::api::adapters {

inline ConvCall forward_call(cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t conv,
                             cudnnTensorDescriptor_t y) {
  return ConvCall{ConvOp::kForward, {x, w, conv, y}};
}
inline ConvCall backward_data_call(cudnnFilterDescriptor_t w, cudnnTensorDescriptor_t dy,
                                   cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t dx) {
  return ConvCall{ConvOp::kBackwardData, {dx, w, conv, dy}};
}
inline ConvCall backward_filter_call(cudnnTensorDescriptor_t x, cudnnTensorDescriptor_t dy,
                                     cudnnConvolutionDescriptor_t conv, cudnnFilterDescriptor_t dw) {
  return ConvCall{ConvOp::kBackwardFilter, {x, dw, conv, dy}};
}

inline void* mutable_ptr(const void* p) { return const_cast<void*>(p); }

template <typename Perf>
Perf to_perf(const AlgoPerf& p) {
  Perf out{};
  out.algo = static_cast<decltype(out.algo)>(p.algo);
  out.status = p.status;
  out.time = p.time_ms;
  out.memory = p.memory;
  out.determinism = p.determinism;
  out.mathType = p.math_type;
  return out;
}

// Get_v7, Find and FindEx share this: plan, then copy the answers into cuDNN's result array.
template <typename Perf>
cudnnStatus_t choose(const char* function, UcudnnContext* context, const ConvCall& call, std::optional<size_t> named_limit,
                     int requested, int* returned, Perf* results, const PlainQuery& plain) {
  return at_boundary(function, [&]() -> Status {
    if (!returned || !results) return Error(ErrorCode::kBadParam, "null result pointer");
    std::vector<AlgoPerf> answers;
    UCUDNN_TRY(choose_algorithms(context, call, named_limit, requested, &answers, plain));
    for (size_t i = 0; i < answers.size(); ++i) results[i] = to_perf<Perf>(answers[i]);
    *returned = static_cast<int>(answers.size());
    return Status::success();
  });
}

// cuDNN 7's cudnnConvolution*Preference_t values, the same for the three ops; cuDNN 8 took the
// enums out of its headers, and programs written for cuDNN 7 still pass them.
enum Cudnn7Preference : int { kNoWorkspace = 0, kPreferFastest = 1, kSpecifyWorkspaceLimit = 2 };

// The cuDNN 7 preference call: the first answer of a get under the preference's limit.
template <typename Algo>
cudnnStatus_t choose_one(const char* function, UcudnnContext* context, cudnnHandle_t raw, const ConvCall& call,
                         int preference, size_t memory_limit, Algo* algo) {
  return at_boundary(function, [&]() -> Status {
    if (!algo) return Error(ErrorCode::kBadParam, "null algo pointer");
    std::optional<size_t> named_limit;
    if (preference == kNoWorkspace) named_limit = 0;
    else if (preference == kSpecifyWorkspaceLimit) named_limit = memory_limit;
    else if (preference != kPreferFastest) return Error(ErrorCode::kBadParam, "unknown algorithm preference");
    std::vector<AlgoPerf> answers;
    // choose_algorithms refuses a null context before it asks the plain query.
    UCUDNN_TRY(
        choose_algorithms(context, call, named_limit, 1, &answers, [&](std::vector<AlgoPerf>* out) -> Status {
          return heuristics_within(raw, call, context->requested_limit_for(named_limit), out);
        }));
    if (answers.empty()) return Error(ErrorCode::kNotSupported, "no algorithm fits the workspace limit");
    *algo = static_cast<Algo>(answers.front().algo);
    return Status::success();
  });
}

inline PlainQuery plain_get(cudnnHandle_t raw, const ConvCall& call) {
  return [raw, call](std::vector<AlgoPerf>* out) { return get_algorithms(raw, call.op, call.descriptors, out); };
}
inline PlainQuery plain_find(cudnnHandle_t raw, const ConvCall& call) {
  return [raw, call](std::vector<AlgoPerf>* out) { return find_algorithms(raw, call.op, call.descriptors, out); };
}
inline PlainQuery plain_find_ex(cudnnHandle_t raw, const ConvCall& call, ConvBuffers buffers, void* workspace,
                                size_t workspace_bytes) {
  return [=](std::vector<AlgoPerf>* out) {
    return find_algorithms_ex(raw, call.op, call.descriptors, buffers, workspace, workspace_bytes, out);
  };
}

inline cudnnStatus_t workspace(const char* function, UcudnnContext* context, const ConvCall& call, int algo,
                               size_t* bytes) {
  return at_boundary(function, [&]() -> Status {
    if (!bytes) return Error(ErrorCode::kBadParam, "null size pointer");
    return query_workspace_size(context, call, algo, bytes);
  });
}

inline cudnnStatus_t run(const char* function, UcudnnContext* context, const ConvCall& call, int algo,
                         const void* alpha, const ConvBuffers& buffers, void* workspace, size_t workspace_bytes,
                         const void* beta) {
  return at_boundary(function, [&]() -> Status {
    return run_convolution(context, call, algo, alpha, buffers, workspace, workspace_bytes, beta);
  });
}


// ---- The adapters, one per table line -----------------------------------------------------
// Declared from the tables first, so that an adapter whose definition below does not match its
// table line is an undefined inline function (a compile error) rather than a silent overload.

#define UCUDNN_DECLARE_ADAPTER(name, params, args) \
  inline cudnnStatus_t name(const char* function, UcudnnContext* context, cudnnHandle_t raw, UCUDNN_UNPAREN params);
UCUDNN_INTERCEPTED_CALLS(UCUDNN_DECLARE_ADAPTER)
UCUDNN_INTERCEPTED_CUDNN7_CALLS(UCUDNN_DECLARE_ADAPTER)
#undef UCUDNN_DECLARE_ADAPTER

// Forward

inline cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(const char* function, UcudnnContext* context,
                                                            cudnnHandle_t raw, const cudnnTensorDescriptor_t xDesc,
                                                            const cudnnFilterDescriptor_t wDesc,
                                                            const cudnnConvolutionDescriptor_t convDesc,
                                                            const cudnnTensorDescriptor_t yDesc,
                                                            const int requestedAlgoCount, int* returnedAlgoCount,
                                                            cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  const ConvCall call = forward_call(xDesc, wDesc, convDesc, yDesc);
  return choose(function, context, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_get(raw, call));
}

inline cudnnStatus_t cudnnGetConvolutionForwardAlgorithm(const char* function, UcudnnContext* context,
                                                         cudnnHandle_t raw, const cudnnTensorDescriptor_t xDesc,
                                                         const cudnnFilterDescriptor_t wDesc,
                                                         const cudnnConvolutionDescriptor_t convDesc,
                                                         const cudnnTensorDescriptor_t yDesc,
                                                         cudnnConvolutionFwdPreference_t preference,
                                                         size_t memoryLimitInBytes, cudnnConvolutionFwdAlgo_t* algo) {
  return choose_one(function, context, raw, forward_call(xDesc, wDesc, convDesc, yDesc), preference,
                    memoryLimitInBytes, algo);
}

inline cudnnStatus_t cudnnFindConvolutionForwardAlgorithm(const char* function, UcudnnContext* context,
                                                          cudnnHandle_t raw, const cudnnTensorDescriptor_t xDesc,
                                                          const cudnnFilterDescriptor_t wDesc,
                                                          const cudnnConvolutionDescriptor_t convDesc,
                                                          const cudnnTensorDescriptor_t yDesc,
                                                          const int requestedAlgoCount, int* returnedAlgoCount,
                                                          cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  const ConvCall call = forward_call(xDesc, wDesc, convDesc, yDesc);
  return choose(function, context, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find(raw, call));
}

inline cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(
    const char* function, UcudnnContext* context, cudnnHandle_t raw, const cudnnTensorDescriptor_t xDesc,
    const void* x, const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t yDesc, void* y, const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionFwdAlgoPerf_t* perfResults, void* workSpace, size_t workSpaceSizeInBytes) {
  const ConvCall call = forward_call(xDesc, wDesc, convDesc, yDesc);
  const ConvBuffers buffers{mutable_ptr(x), mutable_ptr(w), y};
  return choose(function, context, call, workSpaceSizeInBytes, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find_ex(raw, call, buffers, workSpace, workSpaceSizeInBytes));
}

inline cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(const char* function, UcudnnContext* context,
                                                             cudnnHandle_t /*raw*/, const cudnnTensorDescriptor_t xDesc,
                                                             const cudnnFilterDescriptor_t wDesc,
                                                             const cudnnConvolutionDescriptor_t convDesc,
                                                             const cudnnTensorDescriptor_t yDesc,
                                                             cudnnConvolutionFwdAlgo_t algo, size_t* sizeInBytes) {
  return workspace(function, context, forward_call(xDesc, wDesc, convDesc, yDesc), algo, sizeInBytes);
}

inline cudnnStatus_t cudnnConvolutionForward(const char* function, UcudnnContext* context, cudnnHandle_t /*raw*/,
                                             const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
                                             const cudnnFilterDescriptor_t wDesc, const void* w,
                                             const cudnnConvolutionDescriptor_t convDesc,
                                             cudnnConvolutionFwdAlgo_t algo, void* workSpace,
                                             size_t workSpaceSizeInBytes, const void* beta,
                                             const cudnnTensorDescriptor_t yDesc, void* y) {
  return run(function, context, forward_call(xDesc, wDesc, convDesc, yDesc), algo, alpha,
             ConvBuffers{mutable_ptr(x), mutable_ptr(w), y}, workSpace, workSpaceSizeInBytes, beta);
}

// Backward data

inline cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(const char* function, UcudnnContext* context,
                                                                 cudnnHandle_t raw, const cudnnFilterDescriptor_t wDesc,
                                                                 const cudnnTensorDescriptor_t dyDesc,
                                                                 const cudnnConvolutionDescriptor_t convDesc,
                                                                 const cudnnTensorDescriptor_t dxDesc,
                                                                 const int requestedAlgoCount, int* returnedAlgoCount,
                                                                 cudnnConvolutionBwdDataAlgoPerf_t* perfResults) {
  const ConvCall call = backward_data_call(wDesc, dyDesc, convDesc, dxDesc);
  return choose(function, context, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_get(raw, call));
}

inline cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm(const char* function, UcudnnContext* context,
                                                              cudnnHandle_t raw, const cudnnFilterDescriptor_t wDesc,
                                                              const cudnnTensorDescriptor_t dyDesc,
                                                              const cudnnConvolutionDescriptor_t convDesc,
                                                              const cudnnTensorDescriptor_t dxDesc,
                                                              cudnnConvolutionBwdDataPreference_t preference,
                                                              size_t memoryLimitInBytes,
                                                              cudnnConvolutionBwdDataAlgo_t* algo) {
  return choose_one(function, context, raw, backward_data_call(wDesc, dyDesc, convDesc, dxDesc), preference,
                    memoryLimitInBytes, algo);
}

inline cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithm(const char* function, UcudnnContext* context,
                                                               cudnnHandle_t raw, const cudnnFilterDescriptor_t wDesc,
                                                               const cudnnTensorDescriptor_t dyDesc,
                                                               const cudnnConvolutionDescriptor_t convDesc,
                                                               const cudnnTensorDescriptor_t dxDesc,
                                                               const int requestedAlgoCount, int* returnedAlgoCount,
                                                               cudnnConvolutionBwdDataAlgoPerf_t* perfResults) {
  const ConvCall call = backward_data_call(wDesc, dyDesc, convDesc, dxDesc);
  return choose(function, context, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find(raw, call));
}

inline cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(
    const char* function, UcudnnContext* context, cudnnHandle_t raw, const cudnnFilterDescriptor_t wDesc,
    const void* w, const cudnnTensorDescriptor_t dyDesc, const void* dy, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t dxDesc, void* dx, const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdDataAlgoPerf_t* perfResults, void* workSpace, size_t workSpaceSizeInBytes) {
  const ConvCall call = backward_data_call(wDesc, dyDesc, convDesc, dxDesc);
  const ConvBuffers buffers{dx, mutable_ptr(w), mutable_ptr(dy)};
  return choose(function, context, call, workSpaceSizeInBytes, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find_ex(raw, call, buffers, workSpace, workSpaceSizeInBytes));
}

inline cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(
    const char* function, UcudnnContext* context, cudnnHandle_t /*raw*/, const cudnnFilterDescriptor_t wDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t dxDesc, cudnnConvolutionBwdDataAlgo_t algo, size_t* sizeInBytes) {
  return workspace(function, context, backward_data_call(wDesc, dyDesc, convDesc, dxDesc), algo, sizeInBytes);
}

inline cudnnStatus_t cudnnConvolutionBackwardData(const char* function, UcudnnContext* context, cudnnHandle_t /*raw*/,
                                                  const void* alpha, const cudnnFilterDescriptor_t wDesc,
                                                  const void* w, const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                                  const cudnnConvolutionDescriptor_t convDesc,
                                                  cudnnConvolutionBwdDataAlgo_t algo, void* workSpace,
                                                  size_t workSpaceSizeInBytes, const void* beta,
                                                  const cudnnTensorDescriptor_t dxDesc, void* dx) {
  return run(function, context, backward_data_call(wDesc, dyDesc, convDesc, dxDesc), algo, alpha,
             ConvBuffers{dx, mutable_ptr(w), mutable_ptr(dy)}, workSpace, workSpaceSizeInBytes, beta);
}

// Backward filter

inline cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    const char* function, UcudnnContext* context, cudnnHandle_t raw, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnFilterDescriptor_t dwDesc, const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t* perfResults) {
  const ConvCall call = backward_filter_call(xDesc, dyDesc, convDesc, dwDesc);
  return choose(function, context, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_get(raw, call));
}

inline cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm(
    const char* function, UcudnnContext* context, cudnnHandle_t raw, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnFilterDescriptor_t dwDesc, cudnnConvolutionBwdFilterPreference_t preference,
    size_t memoryLimitInBytes, cudnnConvolutionBwdFilterAlgo_t* algo) {
  return choose_one(function, context, raw, backward_filter_call(xDesc, dyDesc, convDesc, dwDesc), preference,
                    memoryLimitInBytes, algo);
}

inline cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithm(
    const char* function, UcudnnContext* context, cudnnHandle_t raw, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnFilterDescriptor_t dwDesc, const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t* perfResults) {
  const ConvCall call = backward_filter_call(xDesc, dyDesc, convDesc, dwDesc);
  return choose(function, context, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find(raw, call));
}

inline cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(
    const char* function, UcudnnContext* context, cudnnHandle_t raw, const cudnnTensorDescriptor_t xDesc,
    const void* x, const cudnnTensorDescriptor_t dyDesc, const void* y, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnFilterDescriptor_t dwDesc, void* dw, const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t* perfResults, void* workSpace, size_t workSpaceSizeInBytes) {
  const ConvCall call = backward_filter_call(xDesc, dyDesc, convDesc, dwDesc);
  const ConvBuffers buffers{mutable_ptr(x), dw, mutable_ptr(y)};
  return choose(function, context, call, workSpaceSizeInBytes, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find_ex(raw, call, buffers, workSpace, workSpaceSizeInBytes));
}

inline cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(
    const char* function, UcudnnContext* context, cudnnHandle_t /*raw*/, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnFilterDescriptor_t gradDesc, cudnnConvolutionBwdFilterAlgo_t algo, size_t* sizeInBytes) {
  return workspace(function, context, backward_filter_call(xDesc, dyDesc, convDesc, gradDesc), algo, sizeInBytes);
}

inline cudnnStatus_t cudnnConvolutionBackwardFilter(const char* function, UcudnnContext* context,
                                                    cudnnHandle_t /*raw*/, const void* alpha,
                                                    const cudnnTensorDescriptor_t xDesc, const void* x,
                                                    const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                                    const cudnnConvolutionDescriptor_t convDesc,
                                                    cudnnConvolutionBwdFilterAlgo_t algo, void* workSpace,
                                                    size_t workSpaceSizeInBytes, const void* beta,
                                                    const cudnnFilterDescriptor_t dwDesc, void* dw) {
  return run(function, context, backward_filter_call(xDesc, dyDesc, convDesc, dwDesc), algo, alpha,
             ConvBuffers{mutable_ptr(x), dw, mutable_ptr(dy)}, workSpace, workSpaceSizeInBytes, beta);
}

}  // namespace ucudnn::api::adapters
