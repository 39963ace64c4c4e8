#include "runtime/row_gatherer.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include "core/logging.h"
#include "core/statistics.h"
#include "store/measurement_claims.h"

namespace ucudnn::runtime {
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

// Whether the set holds a kind that is not an addition to the others.
bool has_a_main_kind(CandidateSet set) {
  for (CandidateKind kind : kinds_of(set)) {
    if (!kind_info(kind).supplementary) return true;
  }
  return false;
}

}  // namespace

Status RowGatherer::gather(const RowsWanted& wanted) {
  const BenchmarkingAccount account(wanted.key.op, source_);
  const DeviceDatabase database = databases_.for_device(wanted.key.device, source_);
  for (CandidateKind kind : kinds_of(wanted.candidates)) {
    const Status gathered = gather_kind(wanted, kind, database);
    if (gathered.ok()) continue;
    const CandidateKindInfo& info = kind_info(kind);
    if (info.supplementary && has_a_main_kind(wanted.candidates)) {
      warn_once(std::string(info.set_name) + "|" + gathered.message(),
                std::string(info.described) + " not measured: " + gathered.message());
      continue;
    }
    return gathered;  // main kinds first: invalid arguments fail here, with cuDNN's own status
  }
  return Status::success();
}

bool RowGatherer::holds(const RowsWanted& wanted, int size) {
  const DeviceDatabase database = databases_.for_device(wanted.key.device, source_);
  const RowsWanted one = wanted.at_sizes({size});
  const bool main_kind = has_a_main_kind(wanted.candidates);
  for (CandidateKind kind : kinds_of(wanted.candidates)) {
    if (main_kind && kind_info(kind).supplementary) continue;
    if (!missing_sizes(one, kind, database).empty()) return false;
  }
  return true;
}

std::vector<Measurement> RowGatherer::rows(const ConvKey& key, const std::vector<int>& sizes,
                                           CandidateSet candidates) const {
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

Status RowGatherer::gather_kind(const RowsWanted& wanted, CandidateKind kind, const DeviceDatabase& database) {
  if (missing_sizes(wanted, kind, database).empty()) return Status::success();
  std::lock_guard<std::mutex> lock(measure_mutex_);
  // Another thread may have measured meanwhile.
  const std::vector<int> missing = missing_sizes(wanted, kind, database);
  if (missing.empty()) return Status::success();
  return measure_once_per_job(wanted, kind, missing, database);
}

Status RowGatherer::measure_once_per_job(const RowsWanted& wanted, CandidateKind kind, std::vector<int> sizes,
                                         const DeviceDatabase& database) {
  if (!database.writable()) return measure(wanted, kind, sizes, database);
  store::MeasurementClaims claims(database.db->user()->file());
  auto waiting_since = std::chrono::steady_clock::now();  // what this process measured is no wait
  const double wait = job_wait_seconds_.load();
  const auto bound = std::chrono::duration<double>(wait);
  // One claim per size: sizes gathered together (the exhaustive search, workspace division) are
  // shared out among the processes that need them at once.
  const std::string kernel = kernel_work(wanted, kind, database);
  // Only one process per GPU measures the kernel at a time (timings side by side on one GPU slow
  // each other): a claim per GPU the source measures on, taken before any size.
  const std::vector<std::string> gpus = source_.measuring_gpus(wanted.key.device);
  std::vector<std::string> gpu_works;
  for (const std::string& gpu : gpus) gpu_works.push_back(kernel + "on " + gpu);
  // As many sizes at a time as the source measures side by side (one per benchmark GPU).
  const std::size_t at_once = std::max<std::size_t>(1, source_.sizes_at_once(wanted.key.device));
  // Sizes ahead only where the source names its GPUs: their point is a GPU that would wait.
  std::vector<int> ahead = gpus.empty() ? std::vector<int>{} : wanted.ahead;
  for (;;) {
    std::vector<std::string> held;  // this round's claims: the GPUs', then the sizes'
    std::vector<int> taken;
    bool unavailable = false, gpus_free = true;
    for (const std::string& work : gpu_works) {
      const store::ClaimOutcome outcome = claims.try_take(work);
      if (outcome == store::ClaimOutcome::kTaken) {
        held.push_back(work);
        continue;
      }
      unavailable = outcome == store::ClaimOutcome::kUnavailable;
      gpus_free = false;
      break;
    }
    // The largest free sizes first: a process that arrives while another measures takes the next.
    for (auto size = sizes.rbegin(); gpus_free && size != sizes.rend() && taken.size() < at_once; ++size) {
      const std::string work = kernel + std::to_string(*size);
      const store::ClaimOutcome outcome = claims.try_take(work);
      if (outcome == store::ClaimOutcome::kTaken) {
        held.push_back(work);
        taken.push_back(*size);
      } else if (outcome == store::ClaimOutcome::kUnavailable) {
        unavailable = true;
        break;
      }
    }
    if (unavailable) {
      for (const std::string& work : held) claims.release(work);
      return measure(wanted, kind, sizes, database);
    }
    // Then sizes ahead, on the GPUs left: rows stored for a size the search then skips cost only
    // the wait they filled.
    const std::size_t wanted_taken = taken.size();
    const bool waiting = wanted_taken == 0;
    for (auto size = ahead.begin(); gpus_free && size != ahead.end() && taken.size() < at_once;) {
      if (missing_sizes(wanted.at_sizes({*size}), kind, database).empty()) {
        size = ahead.erase(size);
        continue;
      }
      const std::string work = kernel + std::to_string(*size);
      if (claims.try_take(work) == store::ClaimOutcome::kTaken) {
        held.push_back(work);
        taken.push_back(*size);
        size = ahead.erase(size);
        continue;
      }
      ++size;
    }
    if (!taken.empty()) {
      // A holder stores its rows before it releases: taken after one did, the rows are there.
      const std::vector<int> still_missing = missing_sizes(wanted.at_sizes(taken), kind, database);
      Status measured = still_missing.empty() ? Status::success() : measure(wanted, kind, still_missing, database);
      if (!measured.ok() && !waiting && taken.size() > wanted_taken) {
        // A size ahead may be what failed: the wanted ones again alone, as without sizes ahead.
        taken.resize(wanted_taken);
        const std::vector<int> wanted_missing = missing_sizes(wanted.at_sizes(taken), kind, database);
        measured = wanted_missing.empty() ? Status::success() : measure(wanted, kind, wanted_missing, database);
      }
      for (const std::string& work : held) claims.release(work);
      if (!measured.ok() && !waiting) return measured;  // a size ahead that fails is the search's to meet
      waiting_since = std::chrono::steady_clock::now();
    } else {
      for (const std::string& work : held) claims.release(work);
      if (std::chrono::steady_clock::now() - waiting_since > bound) {
        warn_once("job wait " + claims.folder(),
                  "another process has been benchmarking " + wanted.key.to_string() + " for over " +
                      std::to_string(wait) + " s (its claim in " + claims.folder() +
                      ", UCUDNN_JOB_WAIT); measuring here too");
        return measure(wanted, kind, sizes, database);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    sizes = missing_sizes(wanted.at_sizes(sizes), kind, database);  // the other holders' rows, as they store them
    if (sizes.empty()) return Status::success();
  }
}

bool RowGatherer::measured_elsewhere(const RowsWanted& wanted, int size) {
  const DeviceDatabase database = databases_.for_device(wanted.key.device, source_);
  if (!database.writable()) return false;
  const store::MeasurementClaims claims(database.db->user()->file());
  for (CandidateKind kind : kinds_of(wanted.candidates)) {
    if (claims.held(kernel_work(wanted, kind, database) + std::to_string(size))) return true;
  }
  return false;
}

std::string RowGatherer::kernel_work(const RowsWanted& wanted, CandidateKind kind,
                                     const DeviceDatabase& database) const {
  // The kernel, kind, limit and search (what makes the rows); the micro-batch size follows.
  return database.identity.to_string() + "|" + short_name(wanted.key.op) + " " + wanted.key.layer_signature() + "|" +
         kind_info(kind).name + "|" + std::to_string(wanted.workspace_limit) + "|" + to_string(wanted.search) + "|";
}

std::vector<int> RowGatherer::missing_sizes(const RowsWanted& wanted, CandidateKind kind,
                                            const DeviceDatabase& database) {
  std::vector<int> missing;
  for (int size : wanted.sizes) {
    const ConvKey micro = wanted.key.with_batch(size);
    if (table_.complete_rows(micro, kind, wanted.workspace_limit)) continue;
    if (promote(micro, kind, wanted.workspace_limit, database)) continue;
    missing.push_back(size);
  }
  return missing;
}

bool RowGatherer::promote(const ConvKey& micro, CandidateKind kind, std::size_t workspace_limit,
                          const DeviceDatabase& database) {
  if (!database.usable()) return false;
  const SearchPhaseClock clock(micro.op, SearchPhase::kDatabase);
  // The first layer complete for the limit; a layer that fails is warned about by the lookup.
  auto found = database.db->lookup(database.identity, micro, kind, workspace_limit);
  if (!found) return false;
  table_.record(micro, kind, found->measured_up_to, found->rows);
  return true;
}

Status RowGatherer::measure(const RowsWanted& wanted, CandidateKind kind, const std::vector<int>& sizes,
                            const DeviceDatabase& database) {
  const ConvKey& key = wanted.key;
  MeasureRequest request;
  request.kind = kind;
  request.sizes = sizes;
  request.mode = wanted.search;
  request.workspace_limit = wanted.workspace_limit;
  for (int size : sizes) {
    const ConvKey micro = key.with_batch(size);
    // Rows measured with less workspace stay valid; other kinds' rows are what to beat.
    if (auto entry = table_.entry(micro, kind)) request.measured_before.emplace(size, entry->rows);
    for (const CandidateKindInfo& other : candidate_kinds()) {
      if (other.kind == kind) continue;
      if (auto entry = table_.entry(micro, other.kind)) {
        auto& other_kinds_rows = request.other_kinds_rows[size];
        other_kinds_rows.insert(other_kinds_rows.end(), entry->rows.begin(), entry->rows.end());
      }
    }
    // The next larger size with rows (of any kind) orders the fast search's candidates.
    for (int larger = size + 1; wanted.search == SearchMode::kFast && larger <= key.batch(); ++larger) {
      std::vector<Measurement> larger_size_rows;
      for (const CandidateKindInfo& any : candidate_kinds()) {
        if (auto entry = table_.entry(key.with_batch(larger), any.kind)) {
          larger_size_rows.insert(larger_size_rows.end(), entry->rows.begin(), entry->rows.end());
        }
      }
      if (!larger_size_rows.empty()) {
        request.larger_size_rows_by_size[size] = std::move(larger_size_rows);
        break;
      }
    }
  }
  std::map<int, MeasuredRows> measured;
  UCUDNN_TRY(source_.measure(wanted.handle, key, request, &measured));
  for (const auto& [size, result] : measured) record(key.with_batch(size), kind, result, database);
  return Status::success();
}

void RowGatherer::record(const ConvKey& micro, CandidateKind kind, const MeasuredRows& measured,
                         const DeviceDatabase& database) {
  table_.record(micro, kind, measured.measured_up_to, measured.rows);
  if (!database.writable()) return;
  const SearchPhaseClock clock(micro.op, SearchPhase::kDatabase);
  auto stored = database.db->store(database.identity, micro, kind, measured.measured_up_to, measured.rows);
  if (!stored) warn_once("store " + database.db->user_path(), stored.message() + "; new results stay in memory");
}

}  // namespace ucudnn::runtime
