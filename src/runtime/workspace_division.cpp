#include "runtime/workspace_division.h"

#include <algorithm>
#include <chrono>
#include <tuple>

#include "core/logging.h"
#include "core/statistics.h"
#include "core/units.h"
#include "optimize/filter_sums.h"
#include "optimize/pareto.h"
#include "runtime/plan_builder.h"
#include "runtime/plan_making.h"

namespace ucudnn::runtime {
using ucudnn::optimize::desirable_configurations;
using ucudnn::optimize::optimize_wd;


std::size_t align_up(std::size_t n, std::size_t alignment) { return (n + alignment - 1) / alignment * alignment; }

SegmentLayout lay_out_segments(const std::vector<std::size_t>& bytes, std::size_t alignment) {
  SegmentLayout layout;
  for (std::size_t b : bytes) {
    layout.offsets.push_back(layout.total);
    layout.total += align_up(b, alignment);
  }
  return layout;
}

bool WdKey::operator<(const WdKey& o) const { return std::tie(layer_id, key) < std::tie(o.layer_id, o.key); }

WorkspaceDivision::WorkspaceDivision(PlanBuilder& builder, double time_limit_seconds)
    : builder_(builder), time_limit_seconds_(time_limit_seconds) {}

Status WorkspaceDivision::front_of(cudnnHandle_t handle, const ConvKey& key, BatchSizePolicy policy,
                                   CandidateSet candidates, std::vector<MicroBatchSplit>* front) {
  std::vector<int> sizes;
  std::vector<Measurement> rows;
  UCUDNN_TRY(builder_.measured_rows(handle, key, policy, candidates, &sizes, &rows));
  const double time_limit = time_limit_seconds_;
  optimize::FrontWork work;
  *front = desirable_configurations(key.batch(), sizes, optimize::priced_for_split_sums(key, std::move(rows)), &work,
                                    std::chrono::steady_clock::now() +
                                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                            std::chrono::duration<double>(time_limit)));
  if (work.past_deadline) return optimize::front_past_time_limit(time_limit);
  if (front->empty()) return Error(ErrorCode::kNotSupported, "no algorithm runs " + key.to_string());
  return Status::success();
}

Status WorkspaceDivision::register_kernel(cudnnHandle_t handle, const WdKey& key, BatchSizePolicy policy,
                                          CandidateSet candidates,
                                          double* predicted_ms, bool* deterministic) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto failed = failures_.find(key);
    if (failed != failures_.end()) return failed->second;
    // Known to the division under this budget: nothing changes, and the answer is the same.
    const Device& device = devices_[key.key.device];
    auto known = device.kernels.find(key);
    if (device.divided && known != device.kernels.end() && known->second.answered_budget == budget_.load()) {
      *predicted_ms = known->second.predicted_ms;
      *deterministic = known->second.deterministic;
      return Status::success();
    }
  }
  std::vector<MicroBatchSplit> front;
  ++fronts_built_;
  Status measured = front_of(handle, key.key, policy, candidates, &front);  // measures outside the lock
  if (!measured.ok()) {
    std::lock_guard<std::mutex> lock(mutex_);
    failures_.emplace(key, measured);
    return measured;
  }
  const std::size_t budget = budget_.load();
  // The front is sorted by workspace: the last configuration within the budget is the fastest.
  const MicroBatchSplit* best = &front.front();
  for (const MicroBatchSplit& p : front) {
    if (p.workspace_bytes <= budget) best = &p;
  }
  *predicted_ms = best->time_ms;
  *deterministic = best->deterministic();
  std::lock_guard<std::mutex> lock(mutex_);
  Device& device = devices_[key.key.device];
  const bool known = device.kernels.count(key) > 0;
  Kernel& kernel = device.kernels[key];
  kernel.predicted_ms = *predicted_ms;
  kernel.deterministic = *deterministic;
  kernel.answered_budget = budget;
  if (known && device.divided) return Status::success();  // changes nothing
  kernel.policy = policy;
  kernel.candidates = candidates;
  ++kernel.count;
  if (device.divided) {
    warn_once("wd new kernel " + key.key.to_string(),
              "workspace division: kernel " + key.key.to_string() +
                  " was first seen after the division was optimised; optimising again");
    device.divided = false;
  }
  return Status::success();
}

Status WorkspaceDivision::divide(cudnnHandle_t handle, int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  return divide_locked(handle, devices_[device]);
}

Status WorkspaceDivision::optimize(cudnnHandle_t handle, int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  Device& d = devices_[device];
  UCUDNN_TRY(divide_locked(handle, d));
  return allocate_locked(d);
}

Status WorkspaceDivision::build_problem(cudnnHandle_t handle, const Device& device, Problem* problem) {
  for (const auto& [key, kernel] : device.kernels) {
    std::vector<MicroBatchSplit> front;
    UCUDNN_TRY(front_of(handle, key.key, kernel.policy, kernel.candidates, &front));
    // The solver sees each workspace as the segment it takes, so that the buffer fits the budget.
    WdKernel k;
    k.name = key.key.to_string();
    k.count = std::max(1, kernel.count);
    k.front = front;
    for (MicroBatchSplit& p : k.front) p.workspace_bytes = align_up(p.workspace_bytes);
    problem->keys.push_back(&key);
    problem->kernels.push_back(std::move(k));
    problem->fronts.push_back(std::move(front));
  }
  return Status::success();
}

Status WorkspaceDivision::build_plans(const Device& device, const Problem& problem, const WdSolution& solution,
                                      std::vector<std::shared_ptr<const ExecutablePlan>>* plans) {
  for (std::size_t i = 0; i < problem.keys.size(); ++i) {
    const std::vector<MicroBatchSplit>& front = problem.fronts[i];
    const std::size_t segment = front[solution.choice[i]].workspace_bytes;
    const BatchSizePolicy policy = device.kernels.at(*problem.keys[i]).policy;
    std::unique_ptr<ExecutablePlan> plan;
    // The front is sorted by workspace. Where the chosen configuration's engines turn out to need
    // more than their rows say (rows recorded before backward filter's beta = 1 need was), the
    // fastest smaller one that fits the same segment runs instead.
    std::size_t next = solution.choice[i] + 1;
    const ProposeSplit propose = [&](const std::vector<OversizedEngineRun>&, Status*) -> std::optional<SplitProposal> {
      if (next == 0) return std::nullopt;
      return SplitProposal{front[--next], std::nullopt};
    };
    UCUDNN_TRY(build_first_that_fits(problem.keys[i]->key, segment, policy,
                                     "workspace division runs a configuration with less workspace", propose, &plan));
    plans->push_back(std::move(plan));
  }
  return Status::success();
}

void WorkspaceDivision::install(Device& device, const Problem& problem, const WdSolution& solution,
                                std::vector<std::shared_ptr<const ExecutablePlan>> plans) {
  std::vector<std::size_t> bytes;
  for (const auto& plan : plans) bytes.push_back(plan->split().workspace_bytes);
  const SegmentLayout layout = lay_out_segments(bytes);
  for (std::size_t i = 0; i < plans.size(); ++i) {
    Kernel& kernel = device.kernels.at(*problem.keys[i]);
    kernel.plan = std::move(plans[i]);
    kernel.segment = WdSegment{layout.offsets[i], bytes[i]};
  }
  device.divided = true;
  device.allocated = false;
  WdSummary& s = device.summary;
  s.buffer_bytes = layout.total;
  s.kernels = static_cast<int>(problem.keys.size());
  s.variables = solution.variables;
  s.solve_ms = solution.solve_ms;
  s.predicted_ms = solution.time_ms;
  ++s.optimizations;
}

Status WorkspaceDivision::divide_locked(cudnnHandle_t handle, Device& device) {
  if (device.kernels.empty()) return Error(ErrorCode::kNotSupported, "no kernels registered");
  Problem problem;
  UCUDNN_TRY(build_problem(handle, device, &problem));
  const std::size_t budget = budget_.load();
  const double time_limit = time_limit_seconds_;
  auto solved = optimize_wd(problem.kernels, budget, time_limit);
  if (!solved) return solved.error().prefixed("workspace division: ");
  if (!solved->optimal) {
    warn_once("wd-time-limit", "workspace division: the time limit of " + std::to_string(time_limit) +
                                   " s (UCUDNN_WD_TIME_LIMIT) stopped the search; the plan is the best found, within " +
                                   std::to_string(solved->gap * 100.0) + "% of the optimum");
  }
  std::vector<std::shared_ptr<const ExecutablePlan>> plans;
  UCUDNN_TRY(build_plans(device, problem, solved.value(), &plans));
  install(device, problem, solved.value(), std::move(plans));
  Statistics::instance().add_division(solved->solve_ms * 1e-3);
  const WdSummary& s = device.summary;
  UCUDNN_LOG_INFO("workspace division: " << s.kernels << " kernels, " << format_byte_size(s.buffer_bytes) << " of "
                                         << format_byte_size(budget) << ", " << s.variables << " variables solved in "
                                         << s.solve_ms << " ms, " << s.predicted_ms << " ms predicted");
  return Status::success();
}

void WorkspaceDivision::free_finished(Device& device) {
  auto done = [](const Retired& r) {
    return std::all_of(r.events.begin(), r.events.end(),
                       [](const CudaEvent& e) { return cudaEventQuery(e.get()) != cudaErrorNotReady; });
  };
  device.retired.erase(std::remove_if(device.retired.begin(), device.retired.end(), done), device.retired.end());
  (void)cudaGetLastError();
}

Status WorkspaceDivision::allocate_locked(Device& device) {
  free_finished(device);
  DeviceBuffer buffer;
  UCUDNN_TRY(buffer.allocate(device.summary.buffer_bytes));
  std::vector<CudaEvent> events(device.kernels.size());
  for (CudaEvent& e : events) UCUDNN_TRY(create_event(cudaEventDisableTiming, &e));

  // The old buffer stays until the work queued on its segments has finished.
  Retired retired;
  for (auto& [key, kernel] : device.kernels) {
    if (kernel.last_use) retired.events.push_back(std::move(kernel.last_use));
  }
  if (device.buffer.get() || !retired.events.empty()) {
    retired.buffer = std::move(device.buffer);
    device.retired.push_back(std::move(retired));
  }
  device.buffer = std::move(buffer);
  auto event = events.begin();
  for (auto& [key, kernel] : device.kernels) {
    kernel.last_use = std::move(*event++);
    kernel.used = false;
    kernel.last_stream = nullptr;
  }
  device.allocated = true;
  return Status::success();
}

Status WorkspaceDivision::run(const CallTarget& target, const WdKey& key, BatchSizePolicy policy,
                              CandidateSet candidates, bool may_optimize,
                              const void* alpha, const void* beta, const ConvBuffers& buffers) {
  cudnnHandle_t handle = target.handle;
  bool known = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Device& device = devices_[key.key.device];
    known = device.kernels.count(key) != 0;
  }
  if (!known) {
    if (!may_optimize) return Error(ErrorCode::kNotSupported, "cannot benchmark during CUDA graph capture");
    double ignored_time = 0;
    bool ignored_determinism = false;
    UCUDNN_TRY(register_kernel(handle, key, policy, candidates, &ignored_time, &ignored_determinism));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  Device& device = devices_[key.key.device];
  if (!device.divided || !device.allocated) {
    if (!may_optimize) return Error(ErrorCode::kNotSupported, "cannot optimise during CUDA graph capture");
    if (!device.divided) UCUDNN_TRY(divide_locked(handle, device));
    UCUDNN_TRY(allocate_locked(device));
  }
  Kernel& kernel = device.kernels.at(key);
  cudaStream_t stream = target.stream;
  // Identical kernels share a segment: a call on another stream waits for the previous use.
  if (kernel.used && kernel.last_stream != stream) {
    UCUDNN_CHECK_CUDA(cudaStreamWaitEvent(stream, kernel.last_use.get(), 0));
  }
  void* segment = static_cast<char*>(device.buffer.get()) + kernel.segment.offset;
  UCUDNN_TRY(kernel.plan->execute(target, alpha, beta, buffers, segment, kernel.segment.bytes));
  UCUDNN_CHECK_CUDA(cudaEventRecord(kernel.last_use.get(), stream));
  kernel.last_stream = stream;
  kernel.used = true;
  return Status::success();
}

std::shared_ptr<const ExecutablePlan> WorkspaceDivision::plan_of(const WdKey& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  Device& device = devices_[key.key.device];
  auto it = device.kernels.find(key);
  if (!device.divided || it == device.kernels.end()) return nullptr;
  return it->second.plan;
}

std::optional<WdSegment> WorkspaceDivision::segment_of(const WdKey& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  Device& device = devices_[key.key.device];
  auto it = device.kernels.find(key);
  if (!device.divided || it == device.kernels.end()) return std::nullopt;
  return it->second.segment;
}

bool WorkspaceDivision::divided(int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  return devices_[device].divided;
}

WdSummary WorkspaceDivision::summary(int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  return devices_[device].summary;
}

}  // namespace ucudnn::runtime
