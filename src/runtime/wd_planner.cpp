#include "runtime/wd_planner.h"

#include "runtime/workspace_division.h"

namespace ucudnn::runtime {
namespace {

WdKey wd_key(const KernelRequest& request) { return WdKey{request.key, request.layer_id}; }

}  // namespace

Status WdPlanner::offer(const KernelRequest& request, int /*requested*/, std::vector<AlgoPerf>* answers) {
  double predicted = 0;
  bool deterministic = false;
  UCUDNN_TRY(WorkspaceDivision::instance().register_kernel(request.handle, wd_key(request), request.policy,
                                                           request.candidates, &predicted,
                                                           &deterministic));
  AlgoPerf p;
  p.algo = virtual_algo(request.key.op);
  p.time_ms = static_cast<float>(predicted);
  p.memory = 0;  // the framework allocates nothing: the plan's segment is ucudnn's
  p.determinism = deterministic ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC;
  answers->push_back(p);
  return Status::success();
}

Status WdPlanner::workspace(const KernelRequest& /*request*/, std::size_t* bytes) {
  *bytes = 0;
  return Status::success();
}

Status WdPlanner::run(const KernelRequest& request, const void* alpha, const void* beta, const ConvBuffers& buffers,
                      void* /*workspace*/, std::size_t /*workspace_bytes*/) {
  return WorkspaceDivision::instance().run(request.target(), wd_key(request), request.policy, request.candidates,
                                           request.may_benchmark,
                                           alpha, beta, buffers);
}

Status WdPlanner::describe(const KernelRequest& request, std::optional<std::size_t> named_limit,
                           std::shared_ptr<const ExecutablePlan>* plan) {
  if (!named_limit) {
    if (auto divided = WorkspaceDivision::instance().plan_of(wd_key(request))) {
      *plan = divided;
      return Status::success();
    }
  }
  return wr_.describe(request, named_limit, plan);
}

}  // namespace ucudnn::runtime
