// The UcudnnHandle_t overloads of cuDNN's convolution API: each maps its arguments to the
// op-generic front-end and nothing more.

#include <memory>
#include <mutex>

#include "api/context.h"
#include "api/frontend.h"
#include "core/env_config.h"
#include "core/logging.h"
#include "core/statistics.h"
#include "runtime/workspace_division.h"
#include "ucudnn/ucudnn.h"

using ucudnn::AlgoPerf;
using ucudnn::at_boundary;
using ucudnn::ConvBuffers;
using ucudnn::ConvCall;
using ucudnn::ConvOp;
using ucudnn::Status;

static_assert(UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED == 8 && UCUDNN_CONVOLUTION_BWD_DATA_ALGO_MICRO_BATCHED == 6 &&
                  UCUDNN_CONVOLUTION_BWD_FILTER_ALGO_MICRO_BATCHED == 7,
              "cuDNN's algorithm counts changed: update core/conv_op.cpp");

namespace {

ConvCall forward_call(cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t conv,
                      cudnnTensorDescriptor_t y) {
  return ConvCall{ConvOp::kForward, {x, w, conv, y}};
}
ConvCall backward_data_call(cudnnFilterDescriptor_t w, cudnnTensorDescriptor_t dy, cudnnConvolutionDescriptor_t conv,
                            cudnnTensorDescriptor_t dx) {
  return ConvCall{ConvOp::kBackwardData, {dx, w, conv, dy}};
}
ConvCall backward_filter_call(cudnnTensorDescriptor_t x, cudnnTensorDescriptor_t dy,
                              cudnnConvolutionDescriptor_t conv, cudnnFilterDescriptor_t dw) {
  return ConvCall{ConvOp::kBackwardFilter, {x, dw, conv, dy}};
}

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
cudnnStatus_t choose(const char* function, UcudnnHandle_t handle, const ConvCall& call,
                     std::optional<size_t> limit, int requested, int* returned, Perf* results,
                     const ucudnn::PlainQuery& plain) {
  return at_boundary(function, [&]() -> Status {
    if (!returned || !results) return Status(CUDNN_STATUS_BAD_PARAM, "null result pointer");
    std::vector<AlgoPerf> answers;
    UCUDNN_RETURN_IF_ERROR(ucudnn::choose_algorithms(handle.context, call, limit, requested, &answers, plain));
    for (size_t i = 0; i < answers.size(); ++i) results[i] = to_perf<Perf>(answers[i]);
    *returned = static_cast<int>(answers.size());
    return Status::success();
  });
}

// The cuDNN 7 preference call: the first answer of a get under the preference's limit.
template <typename Algo>
cudnnStatus_t choose_one(const char* function, UcudnnHandle_t handle, const ConvCall& call, int preference,
                         size_t memory_limit, Algo* algo) {
  return at_boundary(function, [&]() -> Status {
    if (!algo) return Status(CUDNN_STATUS_BAD_PARAM, "null algo pointer");
    if (!handle.context) return Status(CUDNN_STATUS_BAD_PARAM, "the UcudnnHandle_t is null");
    // NO_WORKSPACE = 0, PREFER_FASTEST = 1, SPECIFY_WORKSPACE_LIMIT = 2 for all three ops.
    std::optional<size_t> limit;
    if (preference == 0) limit = 0;
    else if (preference == 2) limit = memory_limit;
    else if (preference != 1) return Status(CUDNN_STATUS_BAD_PARAM, "unknown algorithm preference");
    const cudnnHandle_t raw = handle;
    std::vector<AlgoPerf> answers;
    const size_t plain_limit = limit.value_or(handle.context->default_workspace_limit.load());
    UCUDNN_RETURN_IF_ERROR(ucudnn::choose_algorithms(
        handle.context, call, limit, 1, &answers, [&](std::vector<AlgoPerf>* out) -> Status {
          std::vector<AlgoPerf> all;
          UCUDNN_RETURN_IF_ERROR(ucudnn::get_algorithms(raw, call.op, call.descriptors, &all));
          for (const AlgoPerf& p : all) {
            if (p.status == CUDNN_STATUS_SUCCESS && p.memory <= plain_limit) out->push_back(p);
          }
          return Status::success();
        }));
    if (answers.empty()) return Status(CUDNN_STATUS_NOT_SUPPORTED, "no algorithm fits the workspace limit");
    *algo = static_cast<Algo>(answers.front().algo);
    return Status::success();
  });
}

ucudnn::PlainQuery plain_get(UcudnnHandle_t handle, const ConvCall& call) {
  return [handle, call](std::vector<AlgoPerf>* out) {
    return ucudnn::get_algorithms(handle, call.op, call.descriptors, out);
  };
}
ucudnn::PlainQuery plain_find(UcudnnHandle_t handle, const ConvCall& call) {
  return [handle, call](std::vector<AlgoPerf>* out) {
    return ucudnn::find_algorithms(handle, call.op, call.descriptors, out);
  };
}
ucudnn::PlainQuery plain_find_ex(UcudnnHandle_t handle, const ConvCall& call, ConvBuffers buffers, void* workspace,
                                 size_t workspace_bytes) {
  return [=](std::vector<AlgoPerf>* out) {
    return ucudnn::find_algorithms_ex(handle, call.op, call.descriptors, buffers, workspace, workspace_bytes, out);
  };
}

cudnnStatus_t workspace(const char* function, UcudnnHandle_t handle, const ConvCall& call, int algo, size_t* bytes) {
  return at_boundary(function, [&]() -> Status {
    if (!bytes) return Status(CUDNN_STATUS_BAD_PARAM, "null size pointer");
    return ucudnn::query_workspace_size(handle.context, call, algo, bytes);
  });
}

cudnnStatus_t run(const char* function, UcudnnHandle_t handle, const ConvCall& call, int algo, const void* alpha,
                  const ConvBuffers& buffers, void* workspace, size_t workspace_bytes, const void* beta) {
  return at_boundary(function, [&]() -> Status {
    return ucudnn::run_convolution(handle.context, call, algo, alpha, buffers, workspace, workspace_bytes, beta);
  });
}

void* mutable_ptr(const void* p) { return const_cast<void*>(p); }

}  // namespace

cudnnHandle_t ucudnnGetCudnnHandle(const UcudnnContext* context) { return context ? context->cudnn : nullptr; }

cudnnStatus_t cudnnCreate(UcudnnHandle_t* handle) {
  return at_boundary("cudnnCreate", [&]() -> Status {
    if (!handle) return Status(CUDNN_STATUS_BAD_PARAM, "null handle pointer");
    const auto& config = ucudnn::env_config();
    if (!config) {
      UCUDNN_LOG_ERROR(config.error());
      return Status(CUDNN_STATUS_BAD_PARAM, config.error());
    }
    auto context = std::make_unique<UcudnnContext>();
    UCUDNN_CHECK_CUDA(cudaGetDevice(&context->device));
    UCUDNN_CHECK_CUDNN(cudnnCreate(&context->cudnn));
    // The WD budget is process-wide: the environment sets it once, ucudnnSetTotalWorkspaceSize after.
    static std::once_flag budget_from_environment;
    std::call_once(budget_from_environment, [&] {
      if (config->total_workspace > 0) ucudnn::WorkspaceDivision::instance().set_budget(config->total_workspace);
    });
    if (config->print_statistics) ucudnn::Statistics::instance().print_at_exit();
    context->policy = config->policy;
    context->default_workspace_limit = config->default_workspace_limit;
    *handle = UcudnnHandle_t(context.release());
    return Status::success();
  });
}

cudnnStatus_t cudnnDestroy(UcudnnHandle_t handle) {
  return at_boundary("cudnnDestroy", [&]() -> Status {
    if (!handle.context) return Status(CUDNN_STATUS_BAD_PARAM, "the UcudnnHandle_t is null");
    std::unique_ptr<UcudnnContext> context(handle.context);
    UCUDNN_CHECK_CUDNN(cudnnDestroy(context->cudnn));
    return Status::success();
  });
}

// ---- Forward ------------------------------------------------------------------------------

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                     const cudnnFilterDescriptor_t wDesc,
                                                     const cudnnConvolutionDescriptor_t convDesc,
                                                     const cudnnTensorDescriptor_t yDesc, const int requestedAlgoCount,
                                                     int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  const ConvCall call = forward_call(xDesc, wDesc, convDesc, yDesc);
  return choose(__func__, handle, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_get(handle, call));
}

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm(UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                  const cudnnFilterDescriptor_t wDesc,
                                                  const cudnnConvolutionDescriptor_t convDesc,
                                                  const cudnnTensorDescriptor_t yDesc,
                                                  cudnnConvolutionFwdPreference_t preference, size_t memoryLimitInBytes,
                                                  cudnnConvolutionFwdAlgo_t* algo) {
  return choose_one(__func__, handle, forward_call(xDesc, wDesc, convDesc, yDesc), preference, memoryLimitInBytes,
                    algo);
}

cudnnStatus_t cudnnFindConvolutionForwardAlgorithm(UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                   const cudnnFilterDescriptor_t wDesc,
                                                   const cudnnConvolutionDescriptor_t convDesc,
                                                   const cudnnTensorDescriptor_t yDesc, const int requestedAlgoCount,
                                                   int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  const ConvCall call = forward_call(xDesc, wDesc, convDesc, yDesc);
  return choose(__func__, handle, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
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
  return choose(__func__, handle, call, workSpaceSizeInBytes, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find_ex(handle, call, buffers, workSpace, workSpaceSizeInBytes));
}

cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                      const cudnnFilterDescriptor_t wDesc,
                                                      const cudnnConvolutionDescriptor_t convDesc,
                                                      const cudnnTensorDescriptor_t yDesc,
                                                      cudnnConvolutionFwdAlgo_t algo, size_t* sizeInBytes) {
  return workspace(__func__, handle, forward_call(xDesc, wDesc, convDesc, yDesc), algo, sizeInBytes);
}

cudnnStatus_t cudnnConvolutionForward(UcudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t xDesc,
                                      const void* x, const cudnnFilterDescriptor_t wDesc, const void* w,
                                      const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo,
                                      void* workSpace, size_t workSpaceSizeInBytes, const void* beta,
                                      const cudnnTensorDescriptor_t yDesc, void* y) {
  return run(__func__, handle, forward_call(xDesc, wDesc, convDesc, yDesc), algo, alpha,
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
  return choose(__func__, handle, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_get(handle, call));
}

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm(UcudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                       const cudnnTensorDescriptor_t dyDesc,
                                                       const cudnnConvolutionDescriptor_t convDesc,
                                                       const cudnnTensorDescriptor_t dxDesc,
                                                       cudnnConvolutionBwdDataPreference_t preference,
                                                       size_t memoryLimitInBytes, cudnnConvolutionBwdDataAlgo_t* algo) {
  return choose_one(__func__, handle, backward_data_call(wDesc, dyDesc, convDesc, dxDesc), preference,
                    memoryLimitInBytes, algo);
}

cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithm(UcudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                        const cudnnTensorDescriptor_t dyDesc,
                                                        const cudnnConvolutionDescriptor_t convDesc,
                                                        const cudnnTensorDescriptor_t dxDesc,
                                                        const int requestedAlgoCount, int* returnedAlgoCount,
                                                        cudnnConvolutionBwdDataAlgoPerf_t* perfResults) {
  const ConvCall call = backward_data_call(wDesc, dyDesc, convDesc, dxDesc);
  return choose(__func__, handle, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find(handle, call));
}

cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(
    UcudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnTensorDescriptor_t dyDesc,
    const void* dy, const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, void* dx,
    const int requestedAlgoCount, int* returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t* perfResults,
    void* workSpace, size_t workSpaceSizeInBytes) {
  const ConvCall call = backward_data_call(wDesc, dyDesc, convDesc, dxDesc);
  const ConvBuffers buffers{dx, mutable_ptr(w), mutable_ptr(dy)};
  return choose(__func__, handle, call, workSpaceSizeInBytes, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find_ex(handle, call, buffers, workSpace, workSpaceSizeInBytes));
}

cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(UcudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
                                                           const cudnnTensorDescriptor_t dyDesc,
                                                           const cudnnConvolutionDescriptor_t convDesc,
                                                           const cudnnTensorDescriptor_t dxDesc,
                                                           cudnnConvolutionBwdDataAlgo_t algo, size_t* sizeInBytes) {
  return workspace(__func__, handle, backward_data_call(wDesc, dyDesc, convDesc, dxDesc), algo, sizeInBytes);
}

cudnnStatus_t cudnnConvolutionBackwardData(UcudnnHandle_t handle, const void* alpha,
                                           const cudnnFilterDescriptor_t wDesc, const void* w,
                                           const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                           const cudnnConvolutionDescriptor_t convDesc,
                                           cudnnConvolutionBwdDataAlgo_t algo, void* workSpace,
                                           size_t workSpaceSizeInBytes, const void* beta,
                                           const cudnnTensorDescriptor_t dxDesc, void* dx) {
  return run(__func__, handle, backward_data_call(wDesc, dyDesc, convDesc, dxDesc), algo, alpha,
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
  return choose(__func__, handle, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_get(handle, call));
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm(UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                         const cudnnTensorDescriptor_t dyDesc,
                                                         const cudnnConvolutionDescriptor_t convDesc,
                                                         const cudnnFilterDescriptor_t dwDesc,
                                                         cudnnConvolutionBwdFilterPreference_t preference,
                                                         size_t memoryLimitInBytes,
                                                         cudnnConvolutionBwdFilterAlgo_t* algo) {
  return choose_one(__func__, handle, backward_filter_call(xDesc, dyDesc, convDesc, dwDesc), preference,
                    memoryLimitInBytes, algo);
}

cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithm(UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
                                                          const cudnnTensorDescriptor_t dyDesc,
                                                          const cudnnConvolutionDescriptor_t convDesc,
                                                          const cudnnFilterDescriptor_t dwDesc,
                                                          const int requestedAlgoCount, int* returnedAlgoCount,
                                                          cudnnConvolutionBwdFilterAlgoPerf_t* perfResults) {
  const ConvCall call = backward_filter_call(xDesc, dyDesc, convDesc, dwDesc);
  return choose(__func__, handle, call, std::nullopt, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find(handle, call));
}

cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(
    UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnTensorDescriptor_t dyDesc,
    const void* y, const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, void* dw,
    const int requestedAlgoCount, int* returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t* perfResults,
    void* workSpace, size_t workSpaceSizeInBytes) {
  const ConvCall call = backward_filter_call(xDesc, dyDesc, convDesc, dwDesc);
  const ConvBuffers buffers{mutable_ptr(x), dw, mutable_ptr(y)};
  return choose(__func__, handle, call, workSpaceSizeInBytes, requestedAlgoCount, returnedAlgoCount, perfResults,
                plain_find_ex(handle, call, buffers, workSpace, workSpaceSizeInBytes));
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(UcudnnHandle_t handle,
                                                             const cudnnTensorDescriptor_t xDesc,
                                                             const cudnnTensorDescriptor_t dyDesc,
                                                             const cudnnConvolutionDescriptor_t convDesc,
                                                             const cudnnFilterDescriptor_t gradDesc,
                                                             cudnnConvolutionBwdFilterAlgo_t algo, size_t* sizeInBytes) {
  return workspace(__func__, handle, backward_filter_call(xDesc, dyDesc, convDesc, gradDesc), algo, sizeInBytes);
}

cudnnStatus_t cudnnConvolutionBackwardFilter(UcudnnHandle_t handle, const void* alpha,
                                             const cudnnTensorDescriptor_t xDesc, const void* x,
                                             const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                             const cudnnConvolutionDescriptor_t convDesc,
                                             cudnnConvolutionBwdFilterAlgo_t algo, void* workSpace,
                                             size_t workSpaceSizeInBytes, const void* beta,
                                             const cudnnFilterDescriptor_t dwDesc, void* dw) {
  return run(__func__, handle, backward_filter_call(xDesc, dyDesc, convDesc, dwDesc), algo, alpha,
             ConvBuffers{mutable_ptr(x), dw, mutable_ptr(dy)}, workSpace, workSpaceSizeInBytes, beta);
}
