#pragma once
// WR: each kernel planned on its own under the workspace limit its call gives (runtime/plan_builder.h).

#include "runtime/planner.h"

namespace ucudnn::runtime {

class WrPlanner final : public Planner {
 public:
  Status offer(const KernelRequest& request, int requested, std::vector<AlgoPerf>* answers) override;
  Status workspace(const KernelRequest& request, std::size_t* bytes) override;
  /// Runs the plan of request.requested_limit when the workspace given fits it; otherwise the plan for the
  /// workspace given (a convolution no get/find call has seen is planned here).
  Status run(const KernelRequest& request, const void* alpha, const void* beta, const ConvBuffers& buffers,
             void* workspace, std::size_t workspace_bytes) override;
  Status describe(const KernelRequest& request, std::optional<std::size_t> named_limit,
                  std::shared_ptr<const ExecutablePlan>* plan) override;

 private:
  /// The plan under `workspace_limit`; never benchmarks when the request may not.
  Status plan_for(const KernelRequest& request, std::size_t workspace_limit,
                  std::shared_ptr<const ExecutablePlan>* plan);
};

}  // namespace ucudnn::runtime
