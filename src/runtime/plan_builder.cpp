#include "runtime/plan_builder.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include "core/env_config.h"
#include "core/logging.h"
#include "core/statistics.h"
#include "optimize/size_search.h"

namespace ucudnn::runtime {
using ucudnn::optimize::MicroBatchRun;
using ucudnn::optimize::MicroBatchSplit;
using ucudnn::optimize::fastest_within;
using ucudnn::optimize::optimize_wr;
using ucudnn::optimize::prefer_undivided_within_margin;
using ucudnn::optimize::search_ladder;
using ucudnn::optimize::smaller_sizes_may_help;

namespace {

// Adds the time spent gathering rows (database lookups included) and the timings run to the
// statistics, on every way out.
class BenchmarkingAccount {
 public:
  BenchmarkingAccount(ConvOp op, const MeasurementSource& source)
      : op_(op), source_(source), started_(std::chrono::steady_clock::now()), timings_before_(source.timings_run()) {}
  ~BenchmarkingAccount() {
    Statistics::instance().add_benchmarking(
        op_, std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count(),
        source_.timings_run() - timings_before_);
  }
  BenchmarkingAccount(const BenchmarkingAccount&) = delete;
  BenchmarkingAccount& operator=(const BenchmarkingAccount&) = delete;

 private:
  ConvOp op_;
  const MeasurementSource& source_;
  std::chrono::steady_clock::time_point started_;
  long long timings_before_;
};

// The process's search mode until set: UCUDNN_SEARCH's, fast where it is unset or unreadable
// (cudnnCreate reports a bad value).
SearchMode initial_search_mode() {
  const auto& config = env_config();
  return config ? config->search : SearchMode::kFast;
}

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

// Removes the rows of engine runs found to need more workspace than they were recorded with.
void drop_engine_rows(const std::vector<OversizedEngineRun>& oversized, std::vector<Measurement>* rows) {
  auto listed = [&](const Measurement& m) {
    return std::any_of(oversized.begin(), oversized.end(), [&](const OversizedEngineRun& run) {
      return m.engine == run.engine && m.micro_batch == run.size;
    });
  };
  rows->erase(std::remove_if(rows->begin(), rows->end(), listed), rows->end());
}

// Whether the set holds a kind that is not an addition to the others.
bool has_a_main_kind(CandidateSet set) {
  for (CandidateKind kind : kinds_of(set)) {
    if (!kind_info(kind).supplementary) return true;
  }
  return false;
}

// Whether two plans make the same calls.
bool same_calls(const MicroBatchSplit& a, const MicroBatchSplit& b) {
  if (a.runs.size() != b.runs.size()) return false;
  for (std::size_t i = 0; i < a.runs.size(); ++i) {
    const MicroBatchRun& x = a.runs[i];
    const MicroBatchRun& y = b.runs[i];
    if (x.size != y.size || x.count != y.count || x.algo != y.algo || x.math_type != y.math_type ||
        x.engine != y.engine) {
      return false;
    }
  }
  return true;
}

// "2 x 32 algo 1 + 1 x 64 <engine id>", for the log.
std::string describe_runs(const MicroBatchSplit& plan) {
  std::string runs;
  for (const MicroBatchRun& run : plan.runs) {
    runs += (runs.empty() ? "" : " + ") + std::to_string(run.count) + " x " + std::to_string(run.size) + " " +
            describe_candidate(run.algo, run.engine);
  }
  return runs;
}

// The WR plan of `key` over `rows` with calls priced by `pricing` (not yet made ready to run).
std::optional<MicroBatchSplit> solve_priced(const ConvKey& key, const std::vector<int>& sizes,
                                            std::size_t workspace_limit, CallPricing pricing,
                                            const std::vector<Measurement>& rows) {
  const auto solving = std::chrono::steady_clock::now();
  auto wr = optimize_wr(key.batch(), sizes, rows, workspace_limit, pricing);
  if (wr) wr = prefer_undivided_within_margin(std::move(*wr), rows, workspace_limit, pricing);
  Statistics::instance().add_solving(
      key.op, std::chrono::duration<double>(std::chrono::steady_clock::now() - solving).count());
  return wr;
}

// The plan of `key` over `rows` with calls priced by `pricing`, made ready to run.
Status build_priced(const ConvKey& key, const std::vector<int>& sizes, std::size_t workspace_limit,
                    BatchSizePolicy policy, CallPricing pricing, std::vector<Measurement>* rows,
                    std::unique_ptr<ExecutablePlan>* out) {
  // Each round that fails on an engine's true workspace plans again without that row, so the
  // rounds end (rows recorded before the database kept backward filter's beta = 1 need).
  while (true) {
    auto wr = solve_priced(key, sizes, workspace_limit, pricing, *rows);
    if (!wr) {
      return Error(ErrorCode::kNotSupported, "no algorithm runs " + key.to_string() + " within " +
                                                    std::to_string(workspace_limit) + " bytes of workspace");
    }
    std::optional<double> undivided;
    if (auto single = fastest_within(*rows, key.batch(), workspace_limit, pricing)) {
      undivided = single->cost_ms(pricing);
    }
    std::vector<OversizedEngineRun> oversized;
    const Status built = ExecutablePlan::build(key, workspace_limit, policy, std::move(*wr), undivided, out, &oversized);
    if (built.ok()) return built;
    if (oversized.empty()) return built;
    warn_once("oversized engine " + key.to_string(), "planning " + key.to_string() + " again: " + built.message());
    drop_engine_rows(oversized, rows);
  }
}

}  // namespace

PlanBuilder::PlanBuilder(std::shared_ptr<MeasurementSource> source)
    : source_(std::move(source)), search_mode_(initial_search_mode()) {}

PlanBuilder::PlanBuilder(std::shared_ptr<MeasurementSource> source, std::shared_ptr<BenchmarkDatabase> database,
                         std::vector<std::shared_ptr<BenchmarkDatabase>> system)
    : source_(std::move(source)),
      search_mode_(initial_search_mode()),
      database_(std::make_shared<const DatabaseLayers>(std::move(database), std::move(system))),
      database_configured_(true),
      system_databases_configured_(true) {}

bool PlanBuilder::cached_plan(const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy,
                         CandidateSet candidates, std::shared_ptr<const ExecutablePlan>* out) {
  const std::optional<CachedPlan> cached =
      plans_.find(key, PlanSettings{workspace_limit, policy, candidates, search_mode()});
  if (!cached || !cached->plan) return false;
  *out = cached->plan;
  return true;
}

Status PlanBuilder::plan(cudnnHandle_t handle, const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy,
                    CandidateSet candidates, std::shared_ptr<const ExecutablePlan>* out) {
  const SearchMode search = search_mode();
  const CachedPlan cached = plans_.get_or_build(key, PlanSettings{workspace_limit, policy, candidates, search}, [&] {
    CachedPlan made;
    made.failure = build_plan(handle, key, workspace_limit, policy, candidates, search, &made.plan);
    return made;
  });
  if (!cached.plan) return cached.failure;
  *out = cached.plan;
  return Status::success();
}

Status PlanBuilder::set_database(const std::string& path) {
  std::lock_guard<std::mutex> lock(database_mutex_);
  database_configured_ = true;
  database_ = std::make_shared<const DatabaseLayers>(database_->with_user(nullptr));
  if (path.empty()) return Status::success();
  BenchmarkDatabase::Options options;
  const auto& config = env_config();
  if (config) options.journal = config->database_journal;
  auto opened = BenchmarkDatabase::open(path, options);
  if (!opened) return opened.error();
  database_ = std::make_shared<const DatabaseLayers>(database_->with_user(std::move(opened.value())));
  if (database_->user()->read_only()) {
    warn_once("read-only database " + path, "benchmark database '" + path + "' is read-only (" +
                                                database_->user()->read_only_reason() +
                                                "): lookups use it, new results stay in memory");
  }
  return Status::success();
}

Status PlanBuilder::set_system_databases(const std::vector<std::string>& paths) {
  std::vector<std::string> skipped;
  std::vector<std::shared_ptr<BenchmarkDatabase>> system = DatabaseLayers::open_system(paths, &skipped);
  {
    std::lock_guard<std::mutex> lock(database_mutex_);
    system_databases_configured_ = true;
    database_ = std::make_shared<const DatabaseLayers>(database_->with_system(std::move(system)));
  }
  if (skipped.empty()) return Status::success();
  std::string message;
  for (const std::string& why : skipped) message += (message.empty() ? "" : "; ") + why;
  return Error(ErrorCode::kBadParam, message);
}

std::string PlanBuilder::database_path() { return database()->user_path(); }

std::shared_ptr<const DatabaseLayers> PlanBuilder::database() {
  bool user_configured = false;
  bool system_configured = false;
  {
    std::lock_guard<std::mutex> lock(database_mutex_);
    if (database_configured_ && system_databases_configured_) return database_;
    user_configured = database_configured_;
    system_configured = system_databases_configured_;
  }
  const auto& config = env_config();
  if (!user_configured) {
    const std::string path = config ? config->database : std::string();
    Status status = set_database(path);
    if (!status.ok()) {
      warn_once("database " + path, status.message() + "; benchmark results stay in memory");
    }
  }
  if (!system_configured) {
    // A file that cannot be opened is skipped with a warning. Opened unlocked; a call of
    // set_system_databases meanwhile wins.
    auto system = DatabaseLayers::open_system(config ? config->system_databases : std::vector<std::string>());
    std::lock_guard<std::mutex> lock(database_mutex_);
    if (!system_databases_configured_) {
      system_databases_configured_ = true;
      database_ = std::make_shared<const DatabaseLayers>(database_->with_system(std::move(system)));
    }
  }
  std::lock_guard<std::mutex> lock(database_mutex_);
  return database_;
}

Status PlanBuilder::build_plan(cudnnHandle_t handle, const ConvKey& key, std::size_t workspace_limit,
                          BatchSizePolicy policy, CandidateSet candidates, SearchMode search,
                          std::shared_ptr<const ExecutablePlan>* out) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<int> sizes;
  UCUDNN_TRY(search_sizes(handle, key, plannable_sizes(key, policy), workspace_limit, policy, candidates, search,
                          &sizes));

  std::vector<Measurement> rows = table_rows(key, sizes, candidates);
  std::unique_ptr<ExecutablePlan> plan;
  UCUDNN_TRY(build_priced(key, sizes, workspace_limit, policy, CallPricing::kIssued, &rows, &plan));
  // Replayed calls cost the host one launch: planned on GPU time alone, they may split where
  // issued calls may not. Made only where that plans different calls, and not where it would
  // make a deterministic kernel nondeterministic (a framework asking for determinism would drop
  // it). An addition: a replay plan that cannot be made leaves the issued plan to replay.
  // Checked on the solution, then again on the built plan (building may drop an oversized engine
  // and solve again).
  const auto worth_replaying = [&](const MicroBatchSplit& wr) {
    return !same_calls(wr, plan->split()) && (!plan->split().deterministic() || wr.deterministic());
  };
  const auto replay_wr = solve_priced(key, sizes, workspace_limit, CallPricing::kReplayed, rows);
  std::unique_ptr<ExecutablePlan> replayed;
  if (replay_wr && worth_replaying(*replay_wr)) {
    const Status built = build_priced(key, sizes, workspace_limit, policy, CallPricing::kReplayed, &rows, &replayed);
    if (!built.ok()) warn_once("replay plan " + key.to_string(), "no replay plan: " + built.message());
  }
  const bool distinct = replayed && worth_replaying(replayed->split());
  if (distinct) plan->set_replayed_plan(std::move(replayed));

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  UCUDNN_LOG_INFO(
      "planned " << key.to_string() << " under " << workspace_limit << " B (" << to_string(policy) << ", "
                 << to_string(candidates) << " candidates, " << to_string(search) << " search over "
                 << sizes.size() << " sizes): " << describe_runs(plan->split()) << ", "
                 << plan->split().time_ms << " ms predicted"
                 << (plan->undivided_time_ms() ? ", undivided " + std::to_string(*plan->undivided_time_ms()) + " ms"
                                               : std::string())
                 << (distinct ? "; replayed: " + describe_runs(plan->replayed_plan().split()) + ", " +
                                    std::to_string(plan->replayed_plan().split().time_ms) + " ms of GPU time"
                              : std::string())
                 << ", planning took " << seconds << " s");
  *out = std::move(plan);
  return Status::success();
}

std::vector<int> plannable_sizes(const ConvKey& key, BatchSizePolicy policy) {
  // Backward filter adds the micro-batches' partial gradients in the filter's own type. In half
  // precision that loses most digits where the partial sums cancel, as batch normalisation makes
  // them (PyTorch's ResNet-18 under FP16 autocast: 10-20% error in every weight gradient).
  const bool half_filter = key.w.data_type == CUDNN_DATA_HALF || key.w.data_type == CUDNN_DATA_BFLOAT16;
  if (key.op == ConvOp::kBackwardFilter && half_filter) return {key.batch()};
  // cudaMalloc gives 256-byte aligned buffers; keep every micro-batch on a 16-byte boundary.
  constexpr long long kAlignment = 16;
  const std::vector<long long> bytes_per_sample = {
      static_cast<long long>(key.x.strides[0]) * static_cast<long long>(element_size(key.x.data_type)),
      static_cast<long long>(key.y.strides[0]) * static_cast<long long>(element_size(key.y.data_type))};
  return aligned_micro_batch_sizes(allowed_micro_batch_sizes(policy, key.batch()), key.batch(), bytes_per_sample,
                                   kAlignment);
}

Status PlanBuilder::search_sizes(cudnnHandle_t handle, const ConvKey& key, const std::vector<int>& sizes,
                                 std::size_t workspace_limit, BatchSizePolicy policy, CandidateSet candidates,
                                 SearchMode search, std::vector<int>* searched) {
  const SourceRelease release(*source_);
  if (search == SearchMode::kExhaustive) {
    *searched = sizes;
    return gather_rows(handle, key, sizes, workspace_limit, candidates, search);
  }
  searched->clear();
  const std::vector<int> ladder = search_ladder(sizes, policy);
  for (std::size_t i = 0; i < ladder.size(); ++i) {
    UCUDNN_TRY(gather_rows(handle, key, {ladder[i]}, workspace_limit, candidates, search));
    searched->push_back(ladder[i]);
    const std::vector<Measurement> rows = table_rows(key, *searched, candidates);
    // Planned both ways (a replayed plan may split where an issued one does not): smaller sizes
    // are left out only where neither could gain from them.
    bool may_help = false;
    for (CallPricing pricing : {CallPricing::kIssued, CallPricing::kReplayed}) {
      may_help = may_help || smaller_sizes_may_help(key.batch(), *searched, rows, workspace_limit, pricing,
                                                    optimize::kSearchMargin);
    }
    if (!may_help) {
      const long long skipped = static_cast<long long>(sizes.size() - searched->size());
      if (skipped > 0) Statistics::instance().count_search(key.op, SearchCount::kSizesSkipped, skipped);
      break;
    }
  }
  return Status::success();
}

Status PlanBuilder::measured_rows(cudnnHandle_t handle, const ConvKey& key, BatchSizePolicy policy,
                             CandidateSet candidates, std::vector<int>* sizes, std::vector<Measurement>* rows) {
  *sizes = plannable_sizes(key, policy);
  const SourceRelease release(*source_);
  UCUDNN_TRY(gather_rows(handle, key, *sizes, std::numeric_limits<std::size_t>::max(), candidates, search_mode()));
  *rows = table_rows(key, *sizes, candidates);
  return Status::success();
}

std::vector<Measurement> PlanBuilder::table_rows(const ConvKey& key, const std::vector<int>& sizes,
                                            CandidateSet candidates) {
  std::vector<Measurement> rows;
  for (CandidateKind kind : kinds_of(candidates)) {
    for (int size : sizes) {
      if (auto entry = table_.entry(key.with_batch(size), kind)) {
        rows.insert(rows.end(), entry->rows.begin(), entry->rows.end());
      }
    }
  }
  return rows;
}

Status PlanBuilder::gather_rows(cudnnHandle_t handle, const ConvKey& key, const std::vector<int>& sizes,
                           std::size_t workspace_limit, CandidateSet candidates, SearchMode search) {
  const BenchmarkingAccount account(key.op, *source_);
  const DeviceDatabase database = database_for(key.device);
  for (CandidateKind kind : kinds_of(candidates)) {
    const Status gathered = gather_kind(handle, key, sizes, workspace_limit, kind, search, database);
    if (gathered.ok()) continue;
    // A kind that is an addition (engines): where it fails, the set's other kinds still make a plan.
    const CandidateKindInfo& info = kind_info(kind);
    if (info.supplementary && has_a_main_kind(candidates)) {
      warn_once(std::string(info.set_name) + "|" + gathered.message(),
                std::string(info.described) + " not measured: " + gathered.message());
      continue;
    }
    return gathered;  // main kinds first: invalid arguments fail here, with cuDNN's own status
  }
  return Status::success();
}

Status PlanBuilder::gather_kind(cudnnHandle_t handle, const ConvKey& key, const std::vector<int>& sizes,
                           std::size_t workspace_limit, CandidateKind kind, SearchMode search,
                           const DeviceDatabase& database) {
  if (missing_sizes(key, sizes, workspace_limit, kind, database).empty()) return Status::success();
  std::lock_guard<std::mutex> lock(measure_mutex_);
  // Another thread may have measured meanwhile.
  const std::vector<int> missing = missing_sizes(key, sizes, workspace_limit, kind, database);
  if (missing.empty()) return Status::success();
  return measure(handle, key, kind, missing, workspace_limit, search, database);
}

std::vector<int> PlanBuilder::missing_sizes(const ConvKey& key, const std::vector<int>& sizes,
                                       std::size_t workspace_limit, CandidateKind kind,
                                       const DeviceDatabase& database) {
  std::vector<int> missing;
  for (int size : sizes) {
    const ConvKey micro = key.with_batch(size);
    if (table_.complete_rows(micro, kind, workspace_limit)) continue;
    if (promote(micro, kind, workspace_limit, database)) continue;
    missing.push_back(size);
  }
  return missing;
}

bool PlanBuilder::promote(const ConvKey& micro, CandidateKind kind, std::size_t workspace_limit,
                     const DeviceDatabase& database) {
  if (!database.usable()) return false;
  const SearchPhaseClock clock(micro.op, SearchPhase::kDatabase);
  // The first layer complete for the limit; a layer that fails is warned about by the lookup.
  auto found = database.db->lookup(database.identity, micro, kind, workspace_limit);
  if (!found) return false;
  table_.record(micro, kind, found->measured_up_to, found->rows);
  return true;
}

Status PlanBuilder::measure(cudnnHandle_t handle, const ConvKey& key, CandidateKind kind, const std::vector<int>& sizes,
                       std::size_t workspace_limit, SearchMode search, const DeviceDatabase& database) {
  MeasureRequest request;
  request.kind = kind;
  request.sizes = sizes;
  request.mode = search;
  request.workspace_limit = workspace_limit;
  for (int size : sizes) {
    const ConvKey micro = key.with_batch(size);
    // Rows measured with less workspace stay valid; other kinds' rows are what to beat.
    if (auto entry = table_.entry(micro, kind)) request.known.emplace(size, entry->rows);
    for (const CandidateKindInfo& other : candidate_kinds()) {
      if (other.kind == kind) continue;
      if (auto entry = table_.entry(micro, other.kind)) {
        auto& rivals = request.rivals[size];
        rivals.insert(rivals.end(), entry->rows.begin(), entry->rows.end());
      }
    }
    // The next larger size with rows (of any kind) guides the fast search's order.
    for (int larger = size + 1; search == SearchMode::kFast && larger <= key.batch(); ++larger) {
      std::vector<Measurement> guide;
      for (const CandidateKindInfo& any : candidate_kinds()) {
        if (auto entry = table_.entry(key.with_batch(larger), any.kind)) {
          guide.insert(guide.end(), entry->rows.begin(), entry->rows.end());
        }
      }
      if (!guide.empty()) {
        request.guides[size] = std::move(guide);
        break;
      }
    }
  }
  std::map<int, MeasuredRows> measured;
  UCUDNN_TRY(source_->measure(handle, key, request, &measured));
  for (const auto& [size, result] : measured) record(key.with_batch(size), kind, result, database);
  return Status::success();
}

void PlanBuilder::record(const ConvKey& micro, CandidateKind kind, const MeasuredRows& measured,
                    const DeviceDatabase& database) {
  table_.record(micro, kind, measured.measured_up_to, measured.rows);
  if (!database.writable()) return;
  const SearchPhaseClock clock(micro.op, SearchPhase::kDatabase);
  auto stored = database.db->store(database.identity, micro, kind, measured.measured_up_to, measured.rows);
  if (!stored) warn_once("store " + database.db->user_path(), stored.message() + "; new results stay in memory");
}

PlanBuilder::DeviceDatabase PlanBuilder::database_for(int device) {
  DeviceDatabase view;
  std::shared_ptr<const DatabaseLayers> db = database();
  if (!db->empty() && source_->identify(device, &view.identity).ok()) view.db = std::move(db);
  return view;
}

}  // namespace ucudnn::runtime
