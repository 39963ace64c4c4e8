#include "runtime/workspace_division.h"

#include <algorithm>
#include <tuple>

#include "core/logging.h"
#include "core/statistics.h"
#include "core/units.h"
#include "optimize/pareto.h"
#include "optimize/wd_optimizer.h"
#include "runtime/engine.h"

namespace ucudnn {
namespace {

constexpr std::size_t kSegmentAlignment = 256;  // cudaMalloc's alignment, kept for every segment

std::size_t align_up(std::size_t n) { return (n + kSegmentAlignment - 1) / kSegmentAlignment * kSegmentAlignment; }

// The kernel's desirable configurations, from rows measured (or looked up) by the engine.
Status front_of(cudnnHandle_t handle, const ConvKey& key, BatchSizePolicy policy, std::vector<WrPlan>* front) {
  std::vector<int> sizes;
  std::vector<Measurement> rows;
  UCUDNN_TRY(Engine::instance().measured_rows(handle, key, policy, &sizes, &rows));
  *front = desirable_configurations(key.batch(), sizes, rows);
  if (front->empty()) return Error(ErrorCode::kNotSupported, "no algorithm runs " + key.to_string());
  return Status::success();
}

}  // namespace

bool WdKey::operator<(const WdKey& o) const {
  if (layer_id != o.layer_id) return layer_id < o.layer_id;
  if (key == o.key) return false;
  return key.to_string() < o.key.to_string();
}

WorkspaceDivision& WorkspaceDivision::instance() {
  static WorkspaceDivision* division = new WorkspaceDivision();  // never destroyed: buffers may be in use at exit
  return *division;
}

Status WorkspaceDivision::register_kernel(cudnnHandle_t handle, const WdKey& key, BatchSizePolicy policy,
                                          double* predicted_ms, bool* deterministic) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto failed = failures_.find(key);
    if (failed != failures_.end()) return failed->second;
  }
  std::vector<WrPlan> front;
  Status measured = front_of(handle, key.key, policy, &front);  // benchmarks outside the lock
  if (!measured.ok()) {
    std::lock_guard<std::mutex> lock(mutex_);
    failures_.emplace(key, measured);
    return measured;
  }
  const std::size_t budget = budget_.load();
  // The front is sorted by workspace: the last configuration within the budget is the fastest.
  const WrPlan* best = &front.front();
  for (const WrPlan& p : front) {
    if (p.workspace_bytes <= budget) best = &p;
  }
  *predicted_ms = best->time_ms;
  *deterministic = std::all_of(best->runs.begin(), best->runs.end(), [](const MicroBatchRun& r) { return r.deterministic; });
  std::lock_guard<std::mutex> lock(mutex_);
  Device& device = devices_[key.key.device];
  auto found = device.kernels.find(key);
  if (found != device.kernels.end() && device.optimized) return Status::success();  // changes nothing
  Kernel& kernel = device.kernels[key];
  kernel.policy = policy;
  ++kernel.count;
  if (device.optimized) {
    warn_once("wd new kernel " + key.key.to_string(),
              "workspace division: kernel " + key.key.to_string() +
                  " was first seen after the division was optimised; optimising again");
    device.optimized = false;
  }
  return Status::success();
}

Status WorkspaceDivision::optimize(cudnnHandle_t handle, int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  return optimize_locked(handle, devices_[device]);
}

void WorkspaceDivision::free_finished(Device& device) {
  auto done = [](const Retired& r) {
    return std::all_of(r.events.begin(), r.events.end(),
                       [](cudaEvent_t e) { return cudaEventQuery(e) != cudaErrorNotReady; });
  };
  for (auto it = device.retired.begin(); it != device.retired.end();) {
    if (done(*it)) {
      for (cudaEvent_t e : it->events) cudaEventDestroy(e);
      it = device.retired.erase(it);
    } else {
      ++it;
    }
  }
  (void)cudaGetLastError();
}

Status WorkspaceDivision::optimize_locked(cudnnHandle_t handle, Device& device) {
  free_finished(device);
  if (device.kernels.empty()) return Error(ErrorCode::kNotSupported, "no kernels registered");
  std::vector<const WdKey*> keys;
  std::vector<WdKernel> problem;
  for (auto& [key, kernel] : device.kernels) {
    WdKernel k;
    k.name = key.key.to_string();
    k.count = std::max(1, kernel.count);
    UCUDNN_TRY(front_of(handle, key.key, kernel.policy, &k.front));
    keys.push_back(&key);
    problem.push_back(std::move(k));
  }
  const std::size_t budget = budget_.load();
  auto solution = optimize_wd(problem, budget);
  if (!solution) return Error(ErrorCode::kNotSupported, "workspace division: " + solution.message());

  // Lay the segments out in one buffer and build each kernel's plan.
  std::vector<std::size_t> offsets;
  std::size_t total = 0;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    offsets.push_back(total);
    total += align_up(problem[i].front[solution->choice[i]].workspace_bytes);
  }
  DeviceBuffer buffer;
  UCUDNN_TRY(buffer.allocate(total));
  std::vector<std::shared_ptr<const ExecutablePlan>> plans;
  for (std::size_t i = 0; i < problem.size(); ++i) {
    const WrPlan& chosen = problem[i].front[solution->choice[i]];
    const Kernel& kernel = device.kernels.at(*keys[i]);
    std::unique_ptr<ExecutablePlan> plan;
    UCUDNN_TRY(
        ExecutablePlan::build(keys[i]->key, chosen.workspace_bytes, kernel.policy, chosen, std::nullopt, &plan));
    plans.push_back(std::move(plan));
  }

  // The old buffer stays until the work queued on its segments has finished.
  Retired retired;
  for (auto& [key, kernel] : device.kernels) {
    if (kernel.last_use) retired.events.push_back(kernel.last_use);
    kernel.last_use = nullptr;
  }
  if (device.buffer.get() || !retired.events.empty()) {
    retired.buffer = std::move(device.buffer);
    device.retired.push_back(std::move(retired));
  }
  device.buffer = std::move(buffer);
  for (std::size_t i = 0; i < problem.size(); ++i) {
    Kernel& kernel = device.kernels.at(*keys[i]);
    kernel.plan = plans[i];
    kernel.offset = offsets[i];
    kernel.bytes = plans[i]->wr().workspace_bytes;
    kernel.used = false;
    kernel.last_stream = nullptr;
    UCUDNN_CHECK_CUDA(cudaEventCreateWithFlags(&kernel.last_use, cudaEventDisableTiming));
  }
  device.optimized = true;
  WdSummary& s = device.summary;
  s.budget = budget;
  s.buffer_bytes = total;
  s.kernels = static_cast<int>(problem.size());
  s.variables = solution->variables;
  s.solve_ms = solution->solve_ms;
  Statistics::instance().add_division(solution->solve_ms * 1e-3);
  s.predicted_ms = solution->time_ms;
  ++s.optimizations;
  UCUDNN_LOG_INFO("workspace division: " << s.kernels << " kernels, " << format_byte_size(total) << " of "
                                         << format_byte_size(budget) << ", " << s.variables << " variables solved in "
                                         << s.solve_ms << " ms, " << s.predicted_ms << " ms predicted");
  return Status::success();
}

Status WorkspaceDivision::run(cudnnHandle_t handle, const WdKey& key, BatchSizePolicy policy, bool may_optimize,
                              const void* alpha, const void* beta, const ConvBuffers& buffers) {
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
    UCUDNN_TRY(register_kernel(handle, key, policy, &ignored_time, &ignored_determinism));
  }
  std::lock_guard<std::mutex> lock(mutex_);
  Device& device = devices_[key.key.device];
  if (!device.optimized) {
    if (!may_optimize) return Error(ErrorCode::kNotSupported, "cannot optimise during CUDA graph capture");
    UCUDNN_TRY(optimize_locked(handle, device));
  }
  Kernel& kernel = device.kernels.at(key);
  cudaStream_t stream = nullptr;
  UCUDNN_CHECK_CUDNN(cudnnGetStream(handle, &stream));
  // Identical kernels share a segment: a call on another stream waits for the previous use.
  if (kernel.used && kernel.last_stream != stream) UCUDNN_CHECK_CUDA(cudaStreamWaitEvent(stream, kernel.last_use, 0));
  void* segment = static_cast<char*>(device.buffer.get()) + kernel.offset;
  UCUDNN_TRY(kernel.plan->execute(handle, alpha, beta, buffers, segment, kernel.bytes));
  UCUDNN_CHECK_CUDA(cudaEventRecord(kernel.last_use, stream));
  kernel.last_stream = stream;
  kernel.used = true;
  return Status::success();
}

std::shared_ptr<const ExecutablePlan> WorkspaceDivision::plan_of(const WdKey& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  Device& device = devices_[key.key.device];
  auto it = device.kernels.find(key);
  if (!device.optimized || it == device.kernels.end()) return nullptr;
  return it->second.plan;
}

WdSummary WorkspaceDivision::summary(int device) {
  std::lock_guard<std::mutex> lock(mutex_);
  return devices_[device].summary;
}

}  // namespace ucudnn
