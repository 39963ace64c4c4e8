#include "runtime/wr_planner.h"

#include <algorithm>

#include "runtime/plan_builder.h"

namespace ucudnn::runtime {
namespace {

AlgoPerf plan_as_perf(const ExecutablePlan& plan) {
  AlgoPerf p;
  p.algo = virtual_algo(plan.key().op);
  p.time_ms = static_cast<float>(plan.split().time_ms);
  p.memory = plan.workspace_wanted();
  p.determinism = plan.deterministic() ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC;
  p.math_type = plan.split().runs.empty()
                    ? CUDNN_DEFAULT_MATH
                    : static_cast<cudnnMathType_t>(plan.split().runs.front().candidate().math_type);
  return p;
}

// The real algorithms measured at the full batch within the limit, fastest first: rows of the
// kinds whose candidates are cuDNN algorithm numbers (engines have none to offer).
std::vector<AlgoPerf> measured_singles(const ConvKey& key, std::size_t workspace_limit) {
  std::vector<AlgoPerf> singles;
  for (const CandidateKindInfo& info : candidate_kinds()) {
    if (!info.numbered) continue;
    auto entry = PlanBuilder::instance().table().entry(key, info.kind);
    if (!entry) continue;
    for (const Measurement& m : entry->rows) {
      if (m.workspace_bytes > workspace_limit) continue;
      AlgoPerf p;
      p.algo = m.candidate.algorithm;
      p.time_ms = static_cast<float>(m.cost_ms());
      p.memory = m.workspace_bytes;
      p.determinism = m.deterministic ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC;
      p.math_type = static_cast<cudnnMathType_t>(m.candidate.math_type);
      singles.push_back(p);
    }
  }
  std::stable_sort(singles.begin(), singles.end(),
                   [](const AlgoPerf& a, const AlgoPerf& b) { return a.time_ms < b.time_ms; });
  return singles;
}

}  // namespace

Status WrPlanner::plan_for(const KernelRequest& request, std::size_t workspace_limit,
                           std::shared_ptr<const ExecutablePlan>* plan) {
  PlanBuilder& builder = PlanBuilder::instance();
  if (request.may_benchmark) {
    return builder.plan(request.handle, request.key, workspace_limit, request.policy, request.candidates, plan);
  }
  if (builder.cached_plan(request.key, workspace_limit, request.policy, request.candidates, plan))
    return Status::success();
  // Benchmarking synchronises and allocates, which would break a stream capture.
  return Error(ErrorCode::kNotSupported,
               "cannot benchmark while the handle's stream is being captured into a CUDA graph");
}

Status WrPlanner::offer(const KernelRequest& request, int requested, std::vector<AlgoPerf>* answers) {
  std::shared_ptr<const ExecutablePlan> plan;
  UCUDNN_TRY(plan_for(request, request.requested_limit, &plan));
  answers->push_back(plan_as_perf(*plan));
  for (const AlgoPerf& p : measured_singles(request.key, request.requested_limit)) {
    if (static_cast<int>(answers->size()) >= requested) break;
    answers->push_back(p);
  }
  return Status::success();
}

Status WrPlanner::workspace(const KernelRequest& request, std::size_t* bytes) {
  std::shared_ptr<const ExecutablePlan> plan;
  UCUDNN_TRY(plan_for(request, request.requested_limit, &plan));
  *bytes = plan->workspace_wanted();
  return Status::success();
}

Status WrPlanner::run(const KernelRequest& request, const void* alpha, const void* beta, const ConvBuffers& buffers,
                      void* workspace, std::size_t workspace_bytes) {
  std::shared_ptr<const ExecutablePlan> plan;
  const Status asked = plan_for(request, request.requested_limit, &plan);
  if (!asked.ok() || plan->split().workspace_bytes > workspace_bytes) {
    UCUDNN_TRY(plan_for(request, request.available_limit, &plan));
  }
  return plan->execute(request.target(), alpha, beta, buffers, workspace, workspace_bytes);
}

Status WrPlanner::describe(const KernelRequest& request, std::optional<std::size_t> named_limit,
                           std::shared_ptr<const ExecutablePlan>* plan) {
  return plan_for(request, named_limit.value_or(request.requested_limit), plan);
}

}  // namespace ucudnn::runtime
