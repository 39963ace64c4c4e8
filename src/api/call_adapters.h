#pragma once
// cuDNN's convolution calls in the shape of the front-end: each front-end (the UcudnnHandle_t
// overloads, the LD_PRELOAD layer) finds its UcudnnContext and calls these, nothing more.

#include <cudnn.h>

#include <optional>
#include <vector>

#include "api/context.h"
#include "api/frontend.h"

namespace ucudnn::adapters {

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

inline Status null_context() { return Error(ErrorCode::kBadParam, "the handle is null"); }

// Get_v7, Find and FindEx share this: plan, then copy the answers into cuDNN's result array.
template <typename Perf>
cudnnStatus_t choose(const char* function, UcudnnContext* context, const ConvCall& call, std::optional<size_t> limit,
                     int requested, int* returned, Perf* results, const PlainQuery& plain) {
  return at_boundary(function, [&]() -> Status {
    if (!returned || !results) return Error(ErrorCode::kBadParam, "null result pointer");
    std::vector<AlgoPerf> answers;
    UCUDNN_TRY(choose_algorithms(context, call, limit, requested, &answers, plain));
    for (size_t i = 0; i < answers.size(); ++i) results[i] = to_perf<Perf>(answers[i]);
    *returned = static_cast<int>(answers.size());
    return Status::success();
  });
}

// The cuDNN 7 preference call: the first answer of a get under the preference's limit.
template <typename Algo>
cudnnStatus_t choose_one(const char* function, UcudnnContext* context, const ConvCall& call, int preference,
                         size_t memory_limit, Algo* algo) {
  return at_boundary(function, [&]() -> Status {
    if (!algo) return Error(ErrorCode::kBadParam, "null algo pointer");
    if (!context) return null_context();
    // NO_WORKSPACE = 0, PREFER_FASTEST = 1, SPECIFY_WORKSPACE_LIMIT = 2 for all three ops.
    std::optional<size_t> limit;
    if (preference == 0) limit = 0;
    else if (preference == 2) limit = memory_limit;
    else if (preference != 1) return Error(ErrorCode::kBadParam, "unknown algorithm preference");
    const cudnnHandle_t raw = context->cudnn;
    std::vector<AlgoPerf> answers;
    const size_t plain_limit = context->effective_limit(limit);
    UCUDNN_TRY(
        choose_algorithms(context, call, limit, 1, &answers, [&](std::vector<AlgoPerf>* out) -> Status {
          std::vector<AlgoPerf> all;
          UCUDNN_TRY(get_algorithms(raw, call.op, call.descriptors, &all));
          for (const AlgoPerf& p : all) {
            if (p.status == CUDNN_STATUS_SUCCESS && p.memory <= plain_limit) out->push_back(p);
          }
          return Status::success();
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

}  // namespace ucudnn::adapters
