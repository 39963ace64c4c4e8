#pragma once
// The engine behind every front-end: for a convolution, a workspace limit and a batch-size
// policy, it returns an ExecutablePlan. Benchmark rows come from the process's BenchmarkTable,
// then from the benchmark database (UCUDNN_DATABASE or ucudnnSetDatabase), and only then from
// measuring, on the handle's GPU or spread over UCUDNN_BENCHMARK_DEVICES. New rows go to the table
// and the database. Thread-safe; one instance per process, shared by all handles.

#include <cudnn.h>

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/batch_policy.h"
#include "core/benchmark_table.h"
#include "core/conv_key.h"
#include "runtime/cuda_status.h"
#include "runtime/benchmarker.h"
#include "runtime/executor.h"
#include "store/database.h"

namespace ucudnn {

/// The micro-batch sizes the policy allows whose micro-batches stay 16-byte aligned; the whole
/// batch only for backward filter with a half-precision filter (see engine.cpp).
std::vector<int> plannable_sizes(const ConvKey& key, BatchSizePolicy policy);

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

  /// Every row of the policy's micro-batch sizes of `key`, measured unfiltered (any limit); what
  /// workspace division chooses from.
  Status measured_rows(cudnnHandle_t handle, const ConvKey& key, BatchSizePolicy policy, std::vector<int>* sizes,
                       std::vector<Measurement>* rows);

  /// Uses the database at `path` from now on (empty: none). On error the engine has none.
  Status set_database(const std::string& path);

  /// How many candidate timings this process has run (tests count them).
  long long timings_run() const { return timings_run_.load(); }

  BenchmarkTable& table() { return BenchmarkTable::process_table(); }

  /// Every row the process's table holds for these micro-batch sizes of `key` (none measured).
  std::vector<Measurement> table_rows(const ConvKey& key, const std::vector<int>& sizes);

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
  /// Rows measured for one micro-batch size and the limit up to which they are complete.
  struct Measured {
    std::vector<Measurement> rows;
    std::size_t covered = 0;
  };

  Status build_plan(cudnnHandle_t handle, const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy,
                    std::shared_ptr<const ExecutablePlan>* out);
  /// Fills the table with rows complete for `workspace_limit` at every size it can, from the
  /// database or by measuring.
  Status gather_rows(cudnnHandle_t handle, const ConvKey& key, const std::vector<int>& sizes,
                     std::size_t workspace_limit);
  /// Measures sizes on the handle's GPU, or over the benchmark devices in parallel.
  Status measure(cudnnHandle_t handle, const ConvKey& key, const std::vector<int>& sizes,
                 std::map<int, Measured>* out);
  Status measure_on(cudnnHandle_t handle, const ConvKey& key, const std::vector<int>& sizes,
                    std::map<int, Measured>* out);
  /// The devices to benchmark on for a handle's device (one entry: no parallel benchmarking).
  std::vector<int> benchmark_devices(int handle_device);
  /// An engine-owned cuDNN handle on `device` for parallel benchmarking (call with the device current).
  Status device_handle(int device, cudnnHandle_t* handle);
  /// The database, opened from UCUDNN_DATABASE on first use; null if none.
  std::shared_ptr<BenchmarkDatabase> database();

  std::mutex plans_mutex_;
  std::unordered_map<PlanKey, CachedPlan, PlanKeyHash> plans_;
  // One benchmark at a time: concurrent timings on one GPU would disturb each other.
  std::mutex benchmark_mutex_;
  std::atomic<long long> timings_run_{0};

  std::mutex database_mutex_;
  std::shared_ptr<BenchmarkDatabase> database_;
  bool database_configured_ = false;  ///< UCUDNN_DATABASE read, or ucudnnSetDatabase called

  std::mutex devices_mutex_;
  std::map<int, cudnnHandle_t> device_handles_;
};

}  // namespace ucudnn
