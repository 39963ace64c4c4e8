#include "api/graph/planning.h"

#include <optional>

#include "api/frontend.h"
#include "api/kernel_requests.h"
#include "runtime/device_info.h"
#include "runtime/planner.h"
#include "runtime/scaling_factors.h"

namespace ucudnn::api {

Status graph_plan_limits(const UcudnnContext* context, GraphPlanLimits* limits) {
  UCUDNN_TRY(require_context(context));
  if (context->settings.forced_workspace_limit || context->settings.memory_budget.kind == MemoryBudget::Kind::kOff) {
    limits->keep_within = limits->plan_under = context->requested_limit_for(std::nullopt);
    limits->fixed = true;
    return Status::success();
  }
  DeviceMemory now;
  UCUDNN_TRY(runtime::device_memory(context->device, &now));
  static_cast<BudgetLimits&>(*limits) =
      budget_limits(context->settings.memory_budget, in_use_at_handle_creation().lowest(context->device), now);
  return Status::success();
}

Status graph_workspace(UcudnnContext* context, cudnnHandle_t handle, const ConvKey& key, std::size_t limit,
                       std::size_t* bytes) {
  UCUDNN_TRY(require_context(context));
  // A plan first asked for while the program captures its stream (it never queried the workspace)
  // is not benchmarked: that would break the capture.
  runtime::KernelRequest request;
  UCUDNN_TRY(graph_workspace_request(context, handle, key, limit, &request));
  return runtime::active_planner().workspace(request, bytes);
}

Status run_graph_convolution(UcudnnContext* context, cudnnHandle_t handle, const ConvKey& key, std::size_t limit,
                             double alpha, double beta, const ConvBuffers& buffers, void* workspace,
                             std::size_t workspace_bytes) {
  UCUDNN_TRY(require_context(context));
  // One request per thread, reused: assigning the key keeps its vectors' capacity, so a call
  // allocates nothing here (this runs once per intercepted convolution).
  thread_local runtime::KernelRequest request;
  UCUDNN_TRY(graph_run_request(context, handle, key, limit, workspace_bytes, &request));
  const runtime::ScalingFactor a(key, alpha), b(key, beta);
  return runtime::active_planner().run(request, a.get(), b.get(), buffers, workspace, workspace_bytes);
}

}  // namespace ucudnn::api
