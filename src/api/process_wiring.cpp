// The process's objects and how they connect, in one place: the plan builder over the GPU
// measurement source, the workspace division over the builder, the WR and WD planners, and which of
// them is active, built from the process's settings (core/env_config.h: process_settings, read
// here and handed down, so that runtime/ never reads the environment). The only file that names
// the concrete classes to build them; the builder, the division and the planner interface
// (runtime/plan_builder.h, runtime/workspace_division.h, runtime/planner.h) declare the accessors
// and know only interfaces. Everything here is built on
// first use and never destroyed: handles and their buffers may be used during static destruction
// and at exit.

#include <atomic>
#include <memory>

#include "core/env_config.h"
#include "runtime/gpu_measurement_source.h"
#include "runtime/plan_builder.h"
#include "runtime/planner.h"
#include "runtime/wd_planner.h"
#include "runtime/workspace_division.h"
#include "runtime/wr_planner.h"

namespace ucudnn::runtime {
namespace {

WrPlanner& wr_planner() {
  static WrPlanner* planner = new WrPlanner();
  return *planner;
}

WdPlanner& wd_planner() {
  static WdPlanner* planner = new WdPlanner();
  return *planner;
}

// The planner in force: a call reads it once; set_total_workspace switches it.
std::atomic<Planner*>& active() {
  static std::atomic<Planner*> planner{&wr_planner()};
  return planner;
}

}  // namespace

PlanBuilder& PlanBuilder::instance() {
  static PlanBuilder* builder = [] {
    const Settings& settings = process_settings();
    return new PlanBuilder(std::make_shared<GpuMeasurementSource>(settings.benchmark_devices, settings.engine_knobs),
                           settings);
  }();
  return *builder;
}

WorkspaceDivision& WorkspaceDivision::instance() {
  static WorkspaceDivision* division =
      new WorkspaceDivision(PlanBuilder::instance(), process_settings().wd_time_limit_seconds);
  return *division;
}

Planner& active_planner() { return *active().load(std::memory_order_acquire); }

void set_total_workspace(std::size_t bytes) {
  WorkspaceDivision::instance().set_budget(bytes);
  active().store(bytes > 0 ? static_cast<Planner*>(&wd_planner()) : &wr_planner(), std::memory_order_release);
}

std::size_t total_workspace() { return WorkspaceDivision::instance().budget(); }

}  // namespace ucudnn::runtime
