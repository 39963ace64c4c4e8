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
#include "api/conv_call.h"
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
