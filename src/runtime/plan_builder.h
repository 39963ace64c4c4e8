#pragma once
// The plan builder behind every front-end: for a convolution, a workspace limit, a batch-size
// policy and a candidate set, it returns an ExecutablePlan, kept in a bounded cache (one build per
// entry). It decides which micro-batch sizes to plan over; its RowGatherer gathers their rows
// (table, then the PlanDatabases, then the MeasurementSource: the GPU in a process, recorded
// tables in CPU tests), and plan_making.h makes the plan from them. The plan builder makes no
// device calls itself. Thread-safe; PlanBuilder::instance() is the process's plan builder, shared
// by all handles.
//
// The search (core/search_mode.h): exhaustive gathers every size of the policy; fast gathers the
// sizes from the whole batch down (optimize/size_search.h) and stops once a smaller size cannot
// improve the plan, and asks the source to time candidates the fast way. Workspace division
// gathers every size either way (its fronts span every budget).

#include <cudnn.h>

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/batch_policy.h"
#include "core/benchmark_table.h"
#include "core/bounded_cache.h"
#include "core/candidate_kinds.h"
#include "core/conv_key.h"
#include "core/env_config.h"
#include "core/search_mode.h"
#include "runtime/cuda_status.h"
#include "runtime/executor.h"
#include "runtime/measurement_source.h"
#include "runtime/plan_databases.h"
#include "runtime/row_gatherer.h"

namespace ucudnn::runtime {
using ucudnn::store::BenchmarkDatabase;

/// The micro-batch sizes the policy allows whose micro-batches stay 16-byte aligned; the whole
/// batch only for backward filter with a half-precision filter (see plan_builder.cpp).
std::vector<int> plannable_sizes(const ConvKey& key, BatchSizePolicy policy);

class PlanBuilder {
 public:
  /// How many plans (and failures) the builder keeps, the least recently used dropped first: a
  /// ResNet-50 training step is about 160 kernels at one limit, so room for many networks, limits
  /// and batch sizes; a dropped plan is rebuilt from the table's rows without measuring.
  static constexpr std::size_t kPlanCacheCapacity = 4096;

  /// The process's plan builder: measures on the GPU; its database is UCUDNN_DATABASE (opened on
  /// first use) until set_database, over the read-only UCUDNN_SYSTEM_DATABASES (opened on first use)
  /// until set_system_databases. Built in api/process_wiring.cpp from the process's settings.
  static PlanBuilder& instance();

  /// An engine over `source` as `settings` say: its databases (UCUDNN_DATABASE over
  /// UCUDNN_SYSTEM_DATABASES, opened on first use), their journal, the search mode and the job wait.
  PlanBuilder(std::shared_ptr<MeasurementSource> source, const Settings& settings);
  /// An engine over `source` and exactly `database` (null: none) over the read-only `system`
  /// databases, with every other setting's default.
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

  /// How new kernels are benchmarked from now on (initially the settings'). Plans made under
  /// the other mode stay cached under it.
  void set_search_mode(SearchMode mode) { search_mode_.store(mode); }
  /// How long to wait for another process's benchmark of the same work (the settings' otherwise).
  void set_job_wait(double seconds) { gatherer_.set_job_wait(seconds); }
  SearchMode search_mode() const { return search_mode_.load(); }

  /// Uses the database at `path` from now on (empty: none) as the user database, the one new rows
  /// go to; the system databases stay. On error the builder has no user database.
  Status set_database(const std::string& path) { return databases_.set_user(path); }
  /// Looks up the read-only system databases at `paths` (in order, after the user database) from
  /// now on, instead of UCUDNN_SYSTEM_DATABASES's. A file that cannot be opened is skipped, with a
  /// warning; the error then names each one skipped, and the others are used.
  Status set_system_databases(const std::vector<std::string>& paths) { return databases_.set_system(paths); }
  /// The path of the user database in use, opening UCUDNN_DATABASE first if none was configured yet
  /// (empty: none).
  std::string database_path() { return databases_.layers()->user_path(); }

  /// How many candidate timings the builder's source has run (tests count them).
  long long timings_run() const { return source_->timings_run(); }

  /// The plan builder's own table of rows.
  BenchmarkTable& table() { return gatherer_.table(); }

  /// Every row the table holds for these micro-batch sizes of `key` and the set's kinds (none measured).
  std::vector<Measurement> table_rows(const ConvKey& key, const std::vector<int>& sizes, CandidateSet candidates) {
    return gatherer_.rows(key, sizes, candidates);
  }

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

  Status build_plan(cudnnHandle_t handle, const ConvKey& key, const PlanSettings& settings,
                    std::shared_ptr<const ExecutablePlan>* out);
  /// How the fast search prices a kernel's rows before it plans over them: as the plan will (a
  /// half-precision backward filter's FP32 sums, a padded input's copies).
  using RowPricing = std::function<std::vector<Measurement>(const std::vector<Measurement>&)>;

  /// The sizes of `sizes` whose rows the plan is made over: all of them (exhaustive), or the fast
  /// search's ladder down to where smaller sizes cannot help, the rows priced by `price` (by
  /// default, optimize::priced_for_split_sums of `key`); their rows gathered in the table.
  Status search_sizes(cudnnHandle_t handle, const ConvKey& key, const std::vector<int>& sizes,
                      const PlanSettings& settings, std::vector<int>* searched, const RowPricing& price = {});

  /// Gathers `ladder`'s sizes in turn into `searched` while smaller sizes may still improve the
  /// plan (optimize::smaller_sizes_may_help); `policy_sizes` of the policy in all.
  Status walk_ladder(RowsWanted& wanted, const std::vector<int>& ladder, std::size_t policy_sizes,
                     const PlanSettings& settings, const RowPricing& price, std::vector<int>* searched);
  /// The order the fast search gathers `wanted.key`'s `sizes` in: the whole batch first
  /// (optimize::search_ladder), or, for a batch size new to a kernel whose rows the table or
  /// databases hold at a smaller power of two, the powers of two only
  /// (optimize::shared_size_ladder), so that other batch sizes' rows plan it.
  std::vector<int> fast_search_ladder(const RowsWanted& wanted, const std::vector<int>& sizes, BatchSizePolicy policy);

  /// Adds to `rows` (at `sizes`) the rows of `key`'s output-channel pieces (optimize/channel_pieces.h),
  /// gathered as the kernel's own, for as many piece counts, from the fewest up, as the limit
  /// still costs the kernel speed (optimize::limit_costs_speed), among the counts the search looks
  /// at (optimize::channel_piece_counts_to_search); then forward's input-channel pieces the same way
  /// (optimize::input_piece_counts_to_search).
  /// Searches `derived`, a kernel of its own that runs `key` another way (a channel piece, a padded
  /// input), at `key`'s plannable sizes (its rows priced by `price` as search_sizes says), and adds
  /// to `rows` its rows made rows of `key` by `to_whole`, and their sizes to `sizes`.
  Status add_derived_rows(cudnnHandle_t handle, const ConvKey& key, const ConvKey& derived,
                          const PlanSettings& settings, const RowPricing& price, const RowPricing& to_whole,
                          std::vector<int>* sizes, std::vector<Measurement>* rows);
  Status add_channel_piece_rows(cudnnHandle_t handle, const ConvKey& key, const PlanSettings& settings,
                                std::vector<int>* sizes, std::vector<Measurement>* rows);
  /// Adds to `rows` (at `sizes`) the rows of `key` run on its input padded with zero channels
  /// (optimize/padded_input.h), the padded kernel gathered as a kernel of its own, where the
  /// search tries it (optimize::input_padding_to_search). An addition: a padded kernel that
  /// cannot be measured leaves the rows as they were.
  Status add_padded_input_rows(cudnnHandle_t handle, const ConvKey& key, const PlanSettings& settings,
                               std::vector<int>* sizes, std::vector<Measurement>* rows);

  const std::shared_ptr<MeasurementSource> source_;
  PlanDatabases databases_;
  RowGatherer gatherer_;
  std::atomic<SearchMode> search_mode_;

  // Keyed by the kernel, then its few settings: a call looks its plan up by reference, without
  // copying the key (this runs once per convolution call); one build per entry.
  BoundedCache<ConvKey, ConvKeyHash, PlanSettings, CachedPlan> plans_{kPlanCacheCapacity};
};

}  // namespace ucudnn::runtime
