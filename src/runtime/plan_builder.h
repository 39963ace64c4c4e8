#pragma once
// The plan builder behind every front-end: for a convolution, a workspace limit, a batch-size
// policy and a candidate set, it returns an ExecutablePlan. Each kind of candidate in the set
// (legacy algorithms, graph-API engines) is gathered on its own, and the plan is made over all
// their rows. Benchmark rows come from the plan builder's BenchmarkTable, then from the benchmark
// database, and only then from its MeasurementSource (the GPU in a process; recorded tables in CPU
// tests). New rows go to the table and the database. The plan builder makes no device calls itself.
// Thread-safe; PlanBuilder::instance() is the process's plan builder, shared by all handles.
//
// The search (core/search_mode.h): exhaustive gathers every size of the policy; fast gathers the
// sizes from the whole batch down (optimize/size_search.h) and stops once a smaller size cannot
// improve the plan, and asks the source to time candidates the fast way. Workspace division
// gathers every size either way (its fronts span every budget).

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
#include "core/bounded_cache.h"
#include "core/candidates.h"
#include "core/conv_key.h"
#include "core/search_mode.h"
#include "runtime/cuda_status.h"
#include "runtime/executor.h"
#include "runtime/measurement_source.h"
#include "store/layered_database.h"

namespace ucudnn::runtime {
using ucudnn::store::BenchmarkDatabase;
using ucudnn::store::DatabaseLayers;


/// The micro-batch sizes the policy allows whose micro-batches stay 16-byte aligned; the whole
/// batch only for backward filter with a half-precision filter (see plan_builder.cpp).
std::vector<int> plannable_sizes(const ConvKey& key, BatchSizePolicy policy);

class PlanBuilder {
 public:
  /// How many plans (and failures) the builder keeps, the least recently used dropped first: a
  /// ResNet-50 training step is about 160 kernels at one limit, so room for many networks, limits
  /// and batch sizes; a dropped plan is rebuilt from the table's rows without measuring.
  static constexpr std::size_t kPlanCacheCapacity = 4096;

  /// The process's plan builder: measures on the GPU; its database is UCUDNN_DATABASE (read on first
  /// use) until set_database, over the read-only UCUDNN_SYSTEM_DATABASES (read on first use) until
  /// set_system_databases. Built in runtime/process_wiring.cpp.
  static PlanBuilder& instance();

  /// An engine over `source`, its database from UCUDNN_DATABASE on first use.
  explicit PlanBuilder(std::shared_ptr<MeasurementSource> source);
  /// An engine over `source` and exactly `database` (null: none) over the read-only `system`
  /// databases (UCUDNN_DATABASE and UCUDNN_SYSTEM_DATABASES are not read).
  PlanBuilder(std::shared_ptr<MeasurementSource> source, std::shared_ptr<BenchmarkDatabase> database,
              std::vector<std::shared_ptr<BenchmarkDatabase>> system = {});
  PlanBuilder(const PlanBuilder&) = delete;
  PlanBuilder& operator=(const PlanBuilder&) = delete;

  /// The plan for `key` under `workspace_limit`, measuring through the source (with `handle`,
  /// passed through to it) if needed. A failure is remembered, so that a convolution that cannot
  /// be planned is not measured again on every call.
  Status plan(cudnnHandle_t handle, const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy,
              CandidateSet candidates, std::shared_ptr<const ExecutablePlan>* out);

  /// The plan if it is already built; never measures.
  bool cached_plan(const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy, CandidateSet candidates,
                   std::shared_ptr<const ExecutablePlan>* out);

  /// Every row of the policy's micro-batch sizes of `key` and of the set's kinds, measured
  /// unfiltered (any limit); what workspace division chooses from.
  Status measured_rows(cudnnHandle_t handle, const ConvKey& key, BatchSizePolicy policy, CandidateSet candidates,
                       std::vector<int>* sizes, std::vector<Measurement>* rows);

  /// How new kernels are benchmarked from now on (initially UCUDNN_SEARCH's). Plans made under
  /// the other mode stay cached under it.
  void set_search_mode(SearchMode mode) { search_mode_.store(mode); }
  SearchMode search_mode() const { return search_mode_.load(); }

  /// Uses the database at `path` from now on (empty: none) as the user database, the one new rows
  /// go to; the system databases stay. On error the builder has no user database.
  Status set_database(const std::string& path);
  /// Looks up the read-only system databases at `paths` (in order, after the user database) from
  /// now on, instead of UCUDNN_SYSTEM_DATABASES's. A file that cannot be opened is skipped, with a
  /// warning; the error then names each one skipped, and the others are used.
  Status set_system_databases(const std::vector<std::string>& paths);
  /// The path of the user database in use, opening UCUDNN_DATABASE first if none was configured yet
  /// (empty: none).
  std::string database_path();

  /// How many candidate timings the builder's source has run (tests count them).
  long long timings_run() const { return source_->timings_run(); }

  /// The plan builder's own table of rows.
  BenchmarkTable& table() { return table_; }

  /// Every row the table holds for these micro-batch sizes of `key` and the set's kinds (none measured).
  std::vector<Measurement> table_rows(const ConvKey& key, const std::vector<int>& sizes, CandidateSet candidates);

 private:
  /// What a kernel's plan is made under, beside the kernel itself.
  struct PlanSettings {
    std::size_t workspace_limit;
    BatchSizePolicy policy;
    CandidateSet candidates;
    SearchMode search;
    bool operator==(const PlanSettings& o) const {
      return workspace_limit == o.workspace_limit && policy == o.policy && candidates == o.candidates &&
             search == o.search;
    }
  };
  struct CachedPlan {
    std::shared_ptr<const ExecutablePlan> plan;
    Status failure;
  };
  /// The databases as one device sees them: rows are keyed by the device's identity, so without an
  /// identity the databases are not used.
  struct DeviceDatabase {
    std::shared_ptr<const DatabaseLayers> db;
    DeviceIdentity identity;
    bool usable() const { return db && !db->empty(); }
    bool writable() const { return db && db->writable(); }
  };

  Status build_plan(cudnnHandle_t handle, const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy,
                    CandidateSet candidates, SearchMode search, std::shared_ptr<const ExecutablePlan>* out);
  /// The sizes of `sizes` whose rows the plan is made over: all of them (exhaustive), or the fast
  /// search's ladder down to where smaller sizes cannot help; their rows gathered in the table.
  Status search_sizes(cudnnHandle_t handle, const ConvKey& key, const std::vector<int>& sizes,
                      std::size_t workspace_limit, BatchSizePolicy policy, CandidateSet candidates, SearchMode search,
                      std::vector<int>* searched);
  /// Fills the table with rows of each kind of the set complete for `workspace_limit` at every
  /// size it can, from the database or by measuring.
  Status gather_rows(cudnnHandle_t handle, const ConvKey& key, const std::vector<int>& sizes,
                     std::size_t workspace_limit, CandidateSet candidates, SearchMode search);
  Status gather_kind(cudnnHandle_t handle, const ConvKey& key, const std::vector<int>& sizes,
                     std::size_t workspace_limit, CandidateKind kind, SearchMode search,
                     const DeviceDatabase& database);
  /// The sizes whose rows of `kind` are not complete for `workspace_limit`, after promoting what
  /// the database has into the table.
  std::vector<int> missing_sizes(const ConvKey& key, const std::vector<int>& sizes, std::size_t workspace_limit,
                                 CandidateKind kind, const DeviceDatabase& database);
  /// Copies the database's rows of `micro` and `kind` into the table if they are complete for the limit.
  bool promote(const ConvKey& micro, CandidateKind kind, std::size_t workspace_limit, const DeviceDatabase& database);
  /// Measures `sizes` through the source and records the rows in the table and the database.
  Status measure(cudnnHandle_t handle, const ConvKey& key, CandidateKind kind, const std::vector<int>& sizes,
                 std::size_t workspace_limit, SearchMode search, const DeviceDatabase& database);
  void record(const ConvKey& micro, CandidateKind kind, const MeasuredRows& measured, const DeviceDatabase& database);

  /// The databases, opened from UCUDNN_DATABASE and UCUDNN_SYSTEM_DATABASES on first use.
  std::shared_ptr<const DatabaseLayers> database();
  DeviceDatabase database_for(int device);

  const std::shared_ptr<MeasurementSource> source_;
  BenchmarkTable table_;
  std::atomic<SearchMode> search_mode_;

  // Keyed by the kernel, then its few settings: a call looks its plan up by reference, without
  // copying the key (this runs once per convolution call); one build per entry.
  BoundedCache<ConvKey, ConvKeyHash, PlanSettings, CachedPlan> plans_{kPlanCacheCapacity};
  // One measurement at a time: concurrent timings on one GPU would disturb each other.
  std::mutex measure_mutex_;

  std::mutex database_mutex_;
  /// The user database over the system ones; never null. Replaced whole, never changed in place.
  std::shared_ptr<const DatabaseLayers> database_ = std::make_shared<const DatabaseLayers>();
  bool database_configured_ = false;  ///< UCUDNN_DATABASE read, set_database called, or given
  bool system_databases_configured_ = false;  ///< UCUDNN_SYSTEM_DATABASES read, set_system_databases called, or given
};

}  // namespace ucudnn::runtime
