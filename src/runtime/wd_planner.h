#pragma once
// WD: one budget for every kernel of the process, divided by an integer program
// (runtime/workspace_division.h). Kernels run in segments of ucudnn's own buffer, so the caller
// is asked for no workspace.

#include "runtime/planner.h"
#include "runtime/wr_planner.h"

namespace ucudnn::runtime {

class WdPlanner final : public Planner {
 public:
  Status offer(const KernelRequest& request, int requested, std::vector<AlgoPerf>* answers) override;
  Status workspace(const KernelRequest& request, std::size_t* bytes) override;
  Status run(const KernelRequest& request, const void* alpha, const void* beta, const ConvBuffers& buffers,
             void* workspace, std::size_t workspace_bytes) override;
  /// The plan the division chose; an explicit limit asks for a WR plan.
  Status describe(const KernelRequest& request, std::optional<std::size_t> named_limit,
                  std::shared_ptr<const ExecutablePlan>* plan) override;

 private:
  WrPlanner wr_;
};

}  // namespace ucudnn::runtime
