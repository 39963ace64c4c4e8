#include "runtime/planner.h"

#include <atomic>

#include "runtime/wd_planner.h"
#include "runtime/workspace_division.h"
#include "runtime/wr_planner.h"

namespace ucudnn {
namespace {

// Never destroyed: handles may be used during static destruction.
WrPlanner& wr_planner() {
  static WrPlanner* planner = new WrPlanner();
  return *planner;
}
WdPlanner& wd_planner() {
  static WdPlanner* planner = new WdPlanner();
  return *planner;
}

std::atomic<Planner*>& active() {
  static std::atomic<Planner*> planner{&wr_planner()};
  return planner;
}

}  // namespace

Planner& active_planner() { return *active().load(std::memory_order_acquire); }

void set_total_workspace(std::size_t bytes) {
  WorkspaceDivision::instance().set_budget(bytes);
  active().store(bytes > 0 ? static_cast<Planner*>(&wd_planner()) : &wr_planner(), std::memory_order_release);
}

std::size_t total_workspace() { return WorkspaceDivision::instance().budget(); }

int virtual_algo(ConvOp op) { return algo_count(op); }

}  // namespace ucudnn
