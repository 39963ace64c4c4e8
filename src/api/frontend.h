#pragma once
// The op-generic front-end shared by both interception layers (the UcudnnHandle_t overloads and
// the LD_PRELOAD layer). Each call is one short pipeline: read the key and the handle's settings,
// ask the active planner (runtime/planner.h), and only where it fails do what plain cuDNN would
// (one fallback per kind of call). Errors never escape as exceptions: everything returns a Status,
// turned into a cudnnStatus_t by at_boundary.

#include <cudnn.h>

#include <cstddef>
#include <exception>
#include <functional>
#include <new>
#include <optional>
#include <vector>

#include "api/context.h"
#include "core/expected.h"
#include "core/internal_call.h"
#include "runtime/cudnn_shim.h"
#include "runtime/descriptors.h"
#include "runtime/executor.h"
#include "runtime/planner.h"

namespace ucudnn::api {
using ucudnn::runtime::AlgoPerf;
using ucudnn::runtime::ConvBuffers;
using ucudnn::runtime::ConvDescriptors;
using ucudnn::runtime::ExecutablePlan;


/// CUDNN_STATUS_BAD_PARAM for a null handle: the one place that says so.
Status require_context(const UcudnnContext* context);

/// A new context with its own cuDNN handle on the current device, configured from the
/// environment (a bad variable: CUDNN_STATUS_BAD_PARAM naming it).
Status create_context(UcudnnContext** out);
/// Destroys the context and its cuDNN handle.
Status destroy_context(UcudnnContext* context);

/// One convolution as the caller described it.
struct ConvCall {
  ConvOp op;
  ConvDescriptors descriptors;
};

/// Plain cuDNN's answer to the same query: what get/find calls fall back to.
using PlainQuery = std::function<Status(std::vector<AlgoPerf>*)>;

/// cuDNN's heuristic answers that succeed within `workspace_bytes`, in cuDNN's order: what plain
/// cuDNN would choose from under a workspace limit.
Status heuristics_within(cudnnHandle_t handle, const ConvCall& call, std::size_t workspace_bytes,
                         std::vector<AlgoPerf>* out);

/// Get/find: plans under `named_limit` (nullopt: the handle's default) and lists the plan first, then
/// the real algorithms measured at the full batch within the limit, fastest first.
Status choose_algorithms(UcudnnContext* context, const ConvCall& call, std::optional<std::size_t> named_limit,
                         int requested, std::vector<AlgoPerf>* results, const PlainQuery& plain);

/// Get*WorkspaceSize: the plan's workspace for the virtual algorithm, cuDNN's for a real one.
Status query_workspace_size(UcudnnContext* context, const ConvCall& call, int algo, std::size_t* bytes);

/// Convolution*: runs the plan that fits the given workspace (see ucudnn.h).
Status run_convolution(UcudnnContext* context, const ConvCall& call, int algo, const void* alpha,
                       const ConvBuffers& buffers, void* workspace, std::size_t workspace_bytes, const void* beta);

/// The plan a handle would run for a convolution (ucudnnGetPlan).
Status describe_plan(UcudnnContext* context, const ConvCall& call, std::optional<std::size_t> named_limit,
                     std::shared_ptr<const ExecutablePlan>* plan);

/// Graph API: what a plan of one convolution may take on this handle now. A plan the program
/// built that needs no more than `keep_within` runs as it is; ucudnn plans one that needs more
/// under `plan_under`. Under the memory budget (core/memory_budget.h: what is free, or left of
/// the program's budget, on the handle's device), its BudgetLimits. Where the limit is fixed
/// instead (forced, or the budget off: the default limit), both are that limit, nothing more is
/// reachable, and every plan over it is ucudnn's; under a budget, one plan per kernel stands in
/// (api/graph/frontend.h).
struct GraphPlanLimits : BudgetLimits {
  bool fixed = false;
};
Status graph_plan_limits(const UcudnnContext* context, GraphPlanLimits* limits);

/// Graph API (a plan of one convolution): the workspace ucudnn's plan for `key` needs under
/// `limit`, which the program then allocates. Not benchmarked while `handle`'s stream is being
/// captured (then only a plan made before answers).
Status graph_workspace(UcudnnContext* context, cudnnHandle_t handle, const ConvKey& key, std::size_t limit,
                       std::size_t* bytes);

/// Graph API: runs ucudnn's plan for `key` under `limit` (graph_workspace's) on `handle`'s stream
/// with the program's pointers and the workspace it allocated for graph_workspace's answer. No
/// fallback here: the caller decides.
Status run_graph_convolution(UcudnnContext* context, cudnnHandle_t handle, const ConvKey& key, std::size_t limit,
                             double alpha, double beta, const ConvBuffers& buffers, void* workspace,
                             std::size_t workspace_bytes);

/// Says why handle creation failed, the first time it fails in the process: one line logged as
/// an error (so whatever UCUDNN_LOG_LEVEL is, but off; to UCUDNN_LOG_FILE where set), naming
/// `function`, the status and this thread's last error message. Later failures are only in
/// ucudnnGetLastErrorMessage (and the debug log). Returns `status` unchanged.
cudnnStatus_t report_failed_create(const char* function, cudnnStatus_t status) noexcept;

/// Records a failed call's message for ucudnnGetLastErrorMessage and returns its status.
cudnnStatus_t report_at_boundary(const char* function, const Status& status) noexcept;
/// Inside a catch block: the status of the exception being handled, reported as above.
cudnnStatus_t report_current_exception(const char* function) noexcept;

/// Runs `body` (returning a Status) and converts its result, or an escaping exception, into a
/// cudnnStatus_t. A template, so that a call pays no std::function allocation.
template <typename Body>
cudnnStatus_t at_boundary(const char* function, Body&& body) noexcept {
  const InternalCallScope inside;  // ucudnn's own cuDNN calls are not intercepted again
  try {
    return report_at_boundary(function, body());
  } catch (...) {
    return report_current_exception(function);
  }
}

/// The message of this thread's last failed boundary call ("" if none).
const char* last_error_message();

}  // namespace ucudnn::api
