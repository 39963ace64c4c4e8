#include "runtime/engine.h"

#include <chrono>

#include "core/logging.h"
#include "runtime/cudnn_shim.h"

namespace ucudnn {

Engine& Engine::instance() {
  static Engine* engine = new Engine();  // never destroyed: handles may outlive static destruction
  return *engine;
}

bool Engine::cached_plan(const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy,
                         std::shared_ptr<const ExecutablePlan>* out) {
  std::lock_guard<std::mutex> lock(plans_mutex_);
  auto it = plans_.find(PlanKey{key, workspace_limit, policy});
  if (it == plans_.end() || !it->second.plan) return false;
  *out = it->second.plan;
  return true;
}

Status Engine::plan(cudnnHandle_t handle, const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy,
                    std::shared_ptr<const ExecutablePlan>* out) {
  const PlanKey plan_key{key, workspace_limit, policy};
  {
    std::lock_guard<std::mutex> lock(plans_mutex_);
    auto it = plans_.find(plan_key);
    if (it != plans_.end()) {
      if (!it->second.plan) return it->second.failure;
      *out = it->second.plan;
      return Status::success();
    }
  }
  std::shared_ptr<const ExecutablePlan> built;
  Status status = build_plan(handle, key, workspace_limit, policy, &built);
  std::lock_guard<std::mutex> lock(plans_mutex_);
  auto inserted = plans_.emplace(plan_key, CachedPlan{built, status});
  if (!inserted.first->second.plan) return inserted.first->second.failure;
  *out = inserted.first->second.plan;  // another thread may have won the race: use its plan
  return Status::success();
}

Status Engine::build_plan(cudnnHandle_t handle, const ConvKey& key, std::size_t workspace_limit,
                          BatchSizePolicy policy, std::shared_ptr<const ExecutablePlan>* out) {
  const auto started = std::chrono::steady_clock::now();
  const std::vector<int> sizes = allowed_micro_batch_sizes(policy, key.batch());
  std::vector<Measurement> rows;
  std::vector<int> missing;
  for (int size : sizes) {
    if (auto known = table().complete_rows(key.with_batch(size), workspace_limit)) {
      rows.insert(rows.end(), known->begin(), known->end());
    } else {
      missing.push_back(size);
    }
  }

  if (!missing.empty()) {
    std::lock_guard<std::mutex> lock(benchmark_mutex_);
    // cuDNN validates the descriptors first, so invalid arguments fail with cuDNN's own status.
    {
      TensorDescriptor x, y;
      FilterDescriptor w;
      ConvolutionDescriptor conv;
      UCUDNN_RETURN_IF_ERROR(make_tensor_descriptor(key.x, &x));
      UCUDNN_RETURN_IF_ERROR(make_tensor_descriptor(key.y, &y));
      UCUDNN_RETURN_IF_ERROR(make_filter_descriptor(key.w, &w));
      UCUDNN_RETURN_IF_ERROR(make_convolution_descriptor(key.conv, key.conv.math_type, &conv));
      std::vector<AlgoPerf> heuristics;
      UCUDNN_RETURN_IF_ERROR(get_algorithms(handle, key.op, {x.get(), w.get(), conv.get(), y.get()}, &heuristics));
    }
    std::unique_ptr<Benchmarker> benchmarker;  // made only if something is still missing
    for (int size : missing) {
      const ConvKey micro = key.with_batch(size);
      // Another thread may have measured this size while this one waited for the lock.
      if (auto known = table().complete_rows(micro, workspace_limit)) {
        rows.insert(rows.end(), known->begin(), known->end());
        continue;
      }
      if (!benchmarker) {
        UCUDNN_RETURN_IF_ERROR(Benchmarker::create(handle, key, workspace_limit, BenchmarkSettings{}, &benchmarker));
      }
      const auto previous = table().entry(micro);  // rows measured under a smaller limit stay valid
      const std::vector<Measurement> known = previous ? previous->rows : std::vector<Measurement>{};
      std::vector<Measurement> measured;
      Status status = benchmarker->measure(size, known, &measured);
      if (!status.ok()) {
        UCUDNN_LOG_DEBUG("micro-batch " << size << " of " << key.to_string() << " not measured: " << status.message());
        continue;
      }
      table().record(micro, benchmarker->effective_workspace_limit(), measured);
      rows.insert(rows.end(), known.begin(), known.end());
      rows.insert(rows.end(), measured.begin(), measured.end());
    }
    if (benchmarker) timings_run_ += benchmarker->timings_run();
  }

  auto wr = optimize_wr(key.batch(), sizes, rows, workspace_limit);
  if (!wr) {
    return Status(CUDNN_STATUS_NOT_SUPPORTED, "no algorithm runs " + key.to_string() + " within " +
                                                  std::to_string(workspace_limit) + " bytes of workspace");
  }
  std::optional<double> undivided;
  if (auto single = fastest_within(rows, key.batch(), workspace_limit)) undivided = single->time_ms;

  std::unique_ptr<ExecutablePlan> plan;
  UCUDNN_RETURN_IF_ERROR(ExecutablePlan::build(key, workspace_limit, policy, std::move(*wr), undivided, &plan));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  UCUDNN_LOG_INFO("planned " << key.to_string() << " under " << workspace_limit << " B (" << to_string(policy)
                             << "): " << plan->wr().micro_batch_count() << " micro-batches, "
                             << plan->wr().time_ms << " ms predicted"
                             << (undivided ? ", undivided " + std::to_string(*undivided) + " ms" : std::string())
                             << ", planning took " << seconds << " s");
  *out = std::move(plan);
  return Status::success();
}

}  // namespace ucudnn
