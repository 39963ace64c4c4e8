#pragma once
// Gathers a kernel's benchmark rows at its micro-batch sizes: from the table of rows already
// gathered, then from the benchmark databases, and only then by measuring through the
// MeasurementSource (one measurement at a time: concurrent timings on one GPU would disturb each
// other). New rows go to the table and the user database. Thread-safe.

#include <cudnn.h>

#include <atomic>
#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

#include "core/benchmark_table.h"
#include "core/candidate_kinds.h"
#include "core/conv_key.h"
#include "core/search_mode.h"
#include "runtime/measurement_source.h"
#include "runtime/plan_databases.h"

namespace ucudnn::runtime {

/// What to gather: `key`'s rows at `sizes`, complete for `workspace_limit`, of each kind of
/// `candidates`, measured (where they must be) the `search` way with `handle`.
struct RowsWanted {
  cudnnHandle_t handle;
  const ConvKey& key;
  std::vector<int> sizes;
  std::size_t workspace_limit;
  CandidateSet candidates;
  SearchMode search;
  /// Sizes likely wanted next, in order (the rest of the fast search's ladder): measured where a
  /// GPU would otherwise wait, while `sizes` are measured on another GPU (by another process of the
  /// job, or beside them by this one), so that a job's GPUs walk one kernel's ladder together.
  std::vector<int> ahead = {};

  /// The same rows at other sizes (none ahead).
  RowsWanted at_sizes(std::vector<int> other_sizes) const {
    return {handle, key, std::move(other_sizes), workspace_limit, candidates, search};
  }
};

class RowGatherer {
 public:
  /// `job_wait_seconds`: how long to wait for another process's claimed measurement (UCUDNN_JOB_WAIT).
  RowGatherer(MeasurementSource& source, PlanDatabases& databases, double job_wait_seconds)
      : source_(source), databases_(databases), job_wait_seconds_(job_wait_seconds) {}
  RowGatherer(const RowGatherer&) = delete;
  RowGatherer& operator=(const RowGatherer&) = delete;

  /// Fills the table with the rows `wanted` names. A kind that is an addition to the set's others
  /// (engines) and fails is left out with a warning; a main kind's failure is the result.
  Status gather(const RowsWanted& wanted);
  /// Whether the table or the databases hold complete rows of `size` for what `wanted` asks (of its
  /// main kinds: an addition such as engines may be missing), measuring nothing.
  bool holds(const RowsWanted& wanted, int size);
  /// Whether another process of the job is measuring `size` of what `wanted` asks right now (holds
  /// its claim), for any of the set's kinds.
  bool measured_elsewhere(const RowsWanted& wanted, int size);
  /// Every row the table holds for `sizes` of `key` and the set's kinds (none measured).
  std::vector<Measurement> rows(const ConvKey& key, const std::vector<int>& sizes, CandidateSet candidates) const;
  BenchmarkTable& table() { return table_; }
  /// Replaces the job wait it was built with.
  void set_job_wait(double seconds) { job_wait_seconds_.store(seconds); }

 private:
  Status gather_kind(const RowsWanted& wanted, CandidateKind kind, const DeviceDatabase& database);
  /// The sizes whose rows of `kind` are not complete for the limit, after promoting what the
  /// database has into the table.
  std::vector<int> missing_sizes(const RowsWanted& wanted, CandidateKind kind, const DeviceDatabase& database);
  /// Copies the database's rows of `micro` and `kind` into the table if they are complete for the limit.
  bool promote(const ConvKey& micro, CandidateKind kind, std::size_t workspace_limit, const DeviceDatabase& database);
  /// Measures `sizes` once per job: where the user database is writable, each size under its
  /// claim (store/measurement_claims.h), so that processes needing the same sizes at once share
  /// them out; sizes another process holds are waited for (their rows, as it stores them), up to
  /// UCUDNN_JOB_WAIT, then measured here too.
  Status measure_once_per_job(const RowsWanted& wanted, CandidateKind kind, std::vector<int> sizes,
                              const DeviceDatabase& database);
  /// Measures `sizes` through the source and records the rows in the table and the database.
  Status measure(const RowsWanted& wanted, CandidateKind kind, const std::vector<int>& sizes,
                 const DeviceDatabase& database);
  /// The claim name of measuring `kind` of `wanted`'s kernel, as every process of the job writes
  /// it (the size follows): the device's index is left out, as ranks on other GPUs share the work.
  std::string kernel_work(const RowsWanted& wanted, CandidateKind kind, const DeviceDatabase& database) const;
  void record(const ConvKey& micro, CandidateKind kind, const MeasuredRows& measured, const DeviceDatabase& database);

  MeasurementSource& source_;
  PlanDatabases& databases_;
  BenchmarkTable table_;
  std::mutex measure_mutex_;
  std::atomic<double> job_wait_seconds_;
};

}  // namespace ucudnn::runtime
