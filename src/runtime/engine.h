#pragma once
// The engine behind every front-end: for a convolution, a workspace limit and a batch-size
// policy, it returns an ExecutablePlan. It looks plans up in its cache, takes benchmark rows from
// the process's BenchmarkTable, measures what is missing, and runs the WR optimizer.
// Thread-safe; one instance per process, shared by all handles.

#include <cudnn.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "core/batch_policy.h"
#include "core/benchmark_table.h"
#include "core/conv_key.h"
#include "core/status.h"
#include "runtime/benchmarker.h"
#include "runtime/executor.h"

namespace ucudnn {

class Engine {
 public:
  static Engine& instance();

  /// The plan for `key` under `workspace_limit`, benchmarking on `handle` if needed. A failure is
  /// remembered, so that a convolution that cannot be planned is not re-benchmarked on every call.
  Status plan(cudnnHandle_t handle, const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy,
              std::shared_ptr<const ExecutablePlan>* out);

  /// The plan if it is already built; never benchmarks.
  bool cached_plan(const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy,
                   std::shared_ptr<const ExecutablePlan>* out);

  /// How many candidate timings this process has run (tests count them).
  long long timings_run() const { return timings_run_.load(); }

  BenchmarkTable& table() { return BenchmarkTable::process_table(); }

 private:
  struct PlanKey {
    ConvKey key;
    std::size_t workspace_limit;
    BatchSizePolicy policy;
    bool operator==(const PlanKey& o) const {
      return workspace_limit == o.workspace_limit && policy == o.policy && key == o.key;
    }
  };
  struct PlanKeyHash {
    std::size_t operator()(const PlanKey& k) const {
      return ConvKeyHash()(k.key) ^ (std::hash<std::size_t>()(k.workspace_limit) * 31u) ^
             static_cast<std::size_t>(k.policy);
    }
  };
  struct CachedPlan {
    std::shared_ptr<const ExecutablePlan> plan;
    Status failure;
  };

  Status build_plan(cudnnHandle_t handle, const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy,
                    std::shared_ptr<const ExecutablePlan>* out);

  std::mutex plans_mutex_;
  std::unordered_map<PlanKey, CachedPlan, PlanKeyHash> plans_;
  // One benchmark at a time: concurrent timings on one GPU would disturb each other.
  std::mutex benchmark_mutex_;
  std::atomic<long long> timings_run_{0};
};

}  // namespace ucudnn
