#include "runtime/plan_builder.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include "core/logging.h"
#include "core/statistics.h"
#include "optimize/channel_pieces.h"
#include "optimize/filter_sums.h"
#include "optimize/padded_input.h"
#include "optimize/size_search.h"
#include "optimize/wr_optimizer.h"
#include "runtime/plan_making.h"

namespace ucudnn::runtime {
using ucudnn::optimize::search_ladder;
using ucudnn::optimize::shared_size_ladder;
using ucudnn::optimize::smaller_sizes_may_help;

namespace {

// Frees what the source kept for the kernel it measured last, on every way out.
class SourceRelease {
 public:
  explicit SourceRelease(MeasurementSource& source) : source_(source) {}
  ~SourceRelease() { source_.release(); }
  SourceRelease(const SourceRelease&) = delete;
  SourceRelease& operator=(const SourceRelease&) = delete;

 private:
  MeasurementSource& source_;
};

}  // namespace

PlanBuilder::PlanBuilder(std::shared_ptr<MeasurementSource> source, const Settings& settings)
    : source_(std::move(source)),
      databases_(settings.database, settings.system_databases, settings.database_journal),
      gatherer_(*source_, databases_, settings.job_wait_seconds),
      search_mode_(settings.search) {}

PlanBuilder::PlanBuilder(std::shared_ptr<MeasurementSource> source, std::shared_ptr<BenchmarkDatabase> database,
                         std::vector<std::shared_ptr<BenchmarkDatabase>> system)
    : source_(std::move(source)),
      databases_(std::move(database), std::move(system)),
      gatherer_(*source_, databases_, kDefaultJobWaitSeconds),
      search_mode_(SearchMode::kFast) {}

bool PlanBuilder::cached_plan(const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy,
                              CandidateSet candidates, std::shared_ptr<const ExecutablePlan>* out) {
  const std::optional<CachedPlan> cached =
      plans_.find(key, PlanSettings{workspace_limit, policy, candidates, search_mode()});
  if (!cached || !cached->plan) return false;
  *out = cached->plan;
  return true;
}

Status PlanBuilder::plan(cudnnHandle_t handle, const ConvKey& key, std::size_t workspace_limit,
                         BatchSizePolicy policy, CandidateSet candidates, std::shared_ptr<const ExecutablePlan>* out) {
  const PlanSettings settings{workspace_limit, policy, candidates, search_mode()};
  const CachedPlan cached = plans_.get_or_build(key, settings, [&] {
    CachedPlan made;
    made.failure = build_plan(handle, key, settings, &made.plan);
    return made;
  });
  if (!cached.plan) return cached.failure;
  *out = cached.plan;
  return Status::success();
}

Status PlanBuilder::build_plan(cudnnHandle_t handle, const ConvKey& key, const PlanSettings& settings,
                               std::shared_ptr<const ExecutablePlan>* out) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<int> sizes;
  UCUDNN_TRY(search_sizes(handle, key, plannable_sizes(key, settings.policy), settings, &sizes));
  std::vector<Measurement> rows = gatherer_.rows(key, sizes, settings.candidates);
  UCUDNN_TRY(add_channel_piece_rows(handle, key, settings, &sizes, &rows));
  UCUDNN_TRY(add_padded_input_rows(handle, key, settings, &sizes, &rows));
  std::unique_ptr<ExecutablePlan> plan;
  UCUDNN_TRY(make_wr_plan(key, sizes, settings.workspace_limit, settings.policy, std::move(rows), &plan));

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const ExecutablePlan& replayed = plan->replayed_plan();
  UCUDNN_LOG_INFO(
      "planned " << key.to_string() << " under " << settings.workspace_limit << " B (" << to_string(settings.policy)
                 << ", " << to_string(settings.candidates) << " candidates, " << to_string(settings.search)
                 << " search over " << sizes.size() << " sizes): " << describe_runs(plan->split()) << ", "
                 << plan->split().time_ms << " ms predicted"
                 << (plan->undivided_time_ms() ? ", undivided " + std::to_string(*plan->undivided_time_ms()) + " ms"
                                               : std::string())
                 << (&replayed != plan.get() ? "; replayed: " + describe_runs(replayed.split()) + ", " +
                                                   std::to_string(replayed.split().time_ms) + " ms of GPU time"
                                             : std::string())
                 << ", planning took " << seconds << " s");
  *out = std::move(plan);
  return Status::success();
}

std::vector<int> plannable_sizes(const ConvKey& key, BatchSizePolicy policy) {
  // Half-precision backward filter splits too: its micro-batches are summed in FP32
  // (optimize/filter_sums.h), never in the filter's own type.
  // cudaMalloc gives 256-byte aligned buffers; keep every micro-batch on a 16-byte boundary.
  constexpr long long kAlignment = 16;
  const std::vector<long long> bytes_per_sample = {
      static_cast<long long>(key.x.strides[0]) * static_cast<long long>(element_size(key.x.data_type)),
      static_cast<long long>(key.y.strides[0]) * static_cast<long long>(element_size(key.y.data_type))};
  return aligned_micro_batch_sizes(allowed_micro_batch_sizes(policy, key.batch()), key.batch(), bytes_per_sample,
                                   kAlignment);
}

Status PlanBuilder::search_sizes(cudnnHandle_t handle, const ConvKey& key, const std::vector<int>& sizes,
                                 const PlanSettings& settings, std::vector<int>* searched, const RowPricing& given) {
  const RowPricing price = given ? given : [&key](const std::vector<Measurement>& rows) {
    return optimize::priced_for_split_sums(key, rows);
  };
  const SourceRelease release(*source_);
  RowsWanted wanted{handle, key, sizes, settings.workspace_limit, settings.candidates, settings.search};
  if (settings.search == SearchMode::kExhaustive) {
    *searched = sizes;
    return gatherer_.gather(wanted);
  }
  searched->clear();
  UCUDNN_TRY(
      walk_ladder(wanted, fast_search_ladder(wanted, sizes, settings.policy), sizes.size(), settings, price, searched));
  // Shared sizes that cannot make the batch (a layer whose samples align only in fours, at batch
  // 63): the batch's own search, from the whole batch down.
  const std::vector<Measurement> rows = price(gatherer_.rows(key, *searched, settings.candidates));
  if (optimize::optimize_wr(key.batch(), *searched, rows, settings.workspace_limit, CallPricing::kIssued)) {
    return Status::success();
  }
  std::vector<int> rest;
  for (int size : search_ladder(sizes, settings.policy)) {
    if (std::find(searched->begin(), searched->end(), size) == searched->end()) rest.push_back(size);
  }
  return walk_ladder(wanted, rest, sizes.size(), settings, price, searched);
}

Status PlanBuilder::walk_ladder(RowsWanted& wanted, const std::vector<int>& ladder, std::size_t policy_sizes,
                                const PlanSettings& settings, const RowPricing& price, std::vector<int>* searched) {
  const ConvKey& key = wanted.key;
  for (auto size = ladder.begin(); size != ladder.end(); ++size) {
    wanted.sizes = {*size};
    wanted.ahead.assign(size + 1, ladder.end());
    UCUDNN_TRY(gatherer_.gather(wanted));
    searched->push_back(*size);
    const std::vector<Measurement> rows = price(gatherer_.rows(key, *searched, settings.candidates));
    // Planned both ways (a replayed plan may split where an issued one does not): smaller sizes
    // are left out only where neither could gain from them.
    bool may_help = false;
    for (CallPricing pricing : {CallPricing::kIssued, CallPricing::kReplayed}) {
      may_help = may_help || smaller_sizes_may_help(key.batch(), *searched, rows, settings.workspace_limit, pricing,
                                                    optimize::kSearchMargin);
    }
    if (!may_help) {
      const long long skipped = static_cast<long long>(policy_sizes) - static_cast<long long>(searched->size());
      if (skipped > 0) Statistics::instance().count_search(key.op, SearchCount::kSizesSkipped, skipped);
      break;
    }
  }
  return Status::success();
}

std::vector<int> PlanBuilder::fast_search_ladder(const RowsWanted& wanted, const std::vector<int>& sizes,
                                                 BatchSizePolicy policy) {
  const int batch = wanted.key.batch();
  // The batch measured, or being measured by another process of the job (whose sizes ahead may
  // already be stored): the batch's own ladder, as that process walks it.
  if (policy == BatchSizePolicy::kUndivided || gatherer_.holds(wanted, batch) ||
      gatherer_.measured_elsewhere(wanted, batch)) {
    return search_ladder(sizes, policy);
  }
  const std::vector<int> shared = shared_size_ladder(sizes, batch);
  // Powers of two make every multiple of the smallest (alignment may leave out the smallest ones).
  if (shared.empty() || batch % shared.back() != 0) return search_ladder(sizes, policy);
  for (int size : shared) {
    if (size < batch && gatherer_.holds(wanted, size)) {
      Statistics::instance().count_search(wanted.key.op, SearchCount::kNewBatchSizes);
      return shared;
    }
  }
  return search_ladder(sizes, policy);
}

Status PlanBuilder::add_derived_rows(cudnnHandle_t handle, const ConvKey& key, const ConvKey& derived,
                                     const PlanSettings& settings, const RowPricing& price, const RowPricing& to_whole,
                                     std::vector<int>* sizes, std::vector<Measurement>* rows) {
  // The caller's sizes: a derived kernel keeps x's and y's strides (or copies a micro-batch of x).
  std::vector<int> derived_sizes;
  UCUDNN_TRY(search_sizes(handle, derived, plannable_sizes(key, settings.policy), settings, &derived_sizes, price));
  const std::vector<Measurement> whole = to_whole(gatherer_.rows(derived, derived_sizes, settings.candidates));
  rows->insert(rows->end(), whole.begin(), whole.end());
  for (int size : derived_sizes) {
    if (std::find(sizes->begin(), sizes->end(), size) == sizes->end()) sizes->push_back(size);
  }
  return Status::success();
}

Status PlanBuilder::add_channel_piece_rows(cudnnHandle_t handle, const ConvKey& key, const PlanSettings& settings,
                                          std::vector<int>* sizes, std::vector<Measurement>* rows) {
  const std::vector<int> counts =
      optimize::channel_piece_counts_to_search(key, settings.search, *sizes, *rows, settings.workspace_limit);
  // Pieces are an addition: a piece cuDNN or the source cannot measure leaves the plan as it was.
  for (int pieces : counts) {
    if (!optimize::limit_costs_speed(key, *sizes, *rows, settings.workspace_limit)) break;
    const Status added = add_derived_rows(
        handle, key, optimize::channel_piece_key(key, pieces), settings, {},
        [pieces](const std::vector<Measurement>& piece_rows) { return optimize::rows_from_pieces(piece_rows, pieces); },
        sizes, rows);
    if (!added.ok()) {
      UCUDNN_LOG_DEBUG("no output-channel pieces for " << key.to_string() << ": " << added.message());
      break;
    }
  }
  // Forward's input-channel pieces, the same way (the exhaustive search only, for now).
  for (int pieces : optimize::input_piece_counts_to_search(key, settings.search)) {
    if (!optimize::limit_costs_speed(key, *sizes, *rows, settings.workspace_limit)) break;
    const Status added = add_derived_rows(
        handle, key, optimize::input_piece_key(key, pieces), settings, {},
        [&key, pieces](const std::vector<Measurement>& piece_rows) {
          return optimize::rows_from_input_pieces(key, piece_rows, pieces);
        },
        sizes, rows);
    if (!added.ok()) {
      UCUDNN_LOG_DEBUG("no input-channel pieces for " << key.to_string() << ": " << added.message());
      break;
    }
  }
  return Status::success();
}

Status PlanBuilder::add_padded_input_rows(cudnnHandle_t handle, const ConvKey& key, const PlanSettings& settings,
                                          std::vector<int>* sizes, std::vector<Measurement>* rows) {
  if (!optimize::input_padding_to_search(key, settings.search)) return Status::success();
  // The copies timed where the source runs on a GPU (else priced by the model).
  std::optional<optimize::MeasuredCopies> measured;
  const int timed_size = std::min(key.batch(), 16);
  double one_ms = 0.0, size_ms = 0.0;
  if (source_->time_padded_copies(handle, key, 1, &one_ms).ok() &&
      source_->time_padded_copies(handle, key, timed_size, &size_ms).ok()) {
    measured = optimize::MeasuredCopies{timed_size, one_ms, size_ms};
    UCUDNN_LOG_INFO("padded copies of " << key.to_string() << ": " << one_ms << " ms at 1 sample, " << size_ms
                                        << " ms at " << timed_size);
  }
  // The fast search pads only where the copies of the whole batch leave room to win: they cost
  // less than the plan without them (with the margin). On an H100 they did not for AlexNet's and
  // ResNet's first layers in FP16 (cuDNN's strided copy is slow), so no search was spent there.
  if (settings.search == SearchMode::kFast) {
    const double copies_ms =
        measured ? optimize::measured_copy_ms(key, key.batch(), *measured) : optimize::padded_copy_ms(key, key.batch());
    const auto unpadded = optimize::optimize_wr(key.batch(), *sizes, optimize::priced_for_split_sums(key, *rows),
                                                settings.workspace_limit, CallPricing::kReplayed);
    if (unpadded && copies_ms >= unpadded->time_ms * (1.0 - optimize::kSplitMargin)) {
      UCUDNN_LOG_DEBUG("no padded input for " << key.to_string() << ": its copies (" << copies_ms
                                              << " ms) cost as much as the plan without them");
      return Status::success();
    }
  }
  // Rows of the caller's kernel; the fast search walks the padded kernel's sizes priced so (the
  // copies' workspace grows with the micro-batch).
  const RowPricing to_whole = [&key, &measured](const std::vector<Measurement>& padded_rows) {
    return optimize::rows_from_padded_input(key, padded_rows, measured);
  };
  const RowPricing price = [&key, &to_whole](const std::vector<Measurement>& padded_rows) {
    return optimize::priced_for_split_sums(key, to_whole(padded_rows));
  };
  // An addition: a padded kernel that cannot be measured leaves the rows as they were.
  const Status added =
      add_derived_rows(handle, key, optimize::padded_input_key(key), settings, price, to_whole, sizes, rows);
  if (!added.ok()) UCUDNN_LOG_DEBUG("no padded input for " << key.to_string() << ": " << added.message());
  return Status::success();
}

Status PlanBuilder::measured_rows(cudnnHandle_t handle, const ConvKey& key, BatchSizePolicy policy,
                                  CandidateSet candidates, std::vector<int>* sizes, std::vector<Measurement>* rows) {
  *sizes = plannable_sizes(key, policy);
  const SourceRelease release(*source_);
  UCUDNN_TRY(gatherer_.gather(
      RowsWanted{handle, key, *sizes, std::numeric_limits<std::size_t>::max(), candidates, search_mode()}));
  *rows = gatherer_.rows(key, *sizes, candidates);
  return Status::success();
}

}  // namespace ucudnn::runtime
