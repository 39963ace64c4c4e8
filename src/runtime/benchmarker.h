#pragma once
// Times candidates of one convolution at several micro-batch sizes: one BenchmarkRig (buffers,
// workspace, timer; runtime/benchmark_rig.h) shared by each kind's measurer
// (runtime/candidate_runtime.h), which knows what its candidates are and how one runs.
// Rows are unfiltered: the workspace is what the hungriest candidate needs (where the device has
// that much), so the rows serve any workspace limit. Candidates that fail (out of memory
// included) are skipped.

#include <cudnn.h>

#include <cstddef>
#include <map>
#include <memory>
#include <vector>

#include "core/candidate_kinds.h"
#include "core/conv_key.h"
#include "core/measurement.h"
#include "runtime/benchmark_rig.h"
#include "runtime/candidate_runtime.h"
#include "runtime/cuda_status.h"

namespace ucudnn::runtime {

class Benchmarker {
 public:
  /// Allocates random buffers for `key` at its full batch; each kind's measurer sizes the
  /// workspace (legacy candidates: the hungriest algorithm's, less if the device has less free).
  static Status create(cudnnHandle_t handle, const ConvKey& key, BenchmarkSettings settings,
                       std::unique_ptr<Benchmarker>* out);
  Benchmarker(const Benchmarker&) = delete;
  Benchmarker& operator=(const Benchmarker&) = delete;

  /// Measures, at one micro-batch size, the candidates of `kind` the request lacks (see
  /// KindMeasurer). Each kind's measurer is made on first use and shares the rig with the others.
  Status measure(CandidateKind kind, const SizeRequest& request, std::vector<Measurement>* measured);

  /// The workspace limit up to which the rows of `kind` are complete: unbounded (SIZE_MAX) when
  /// every candidate's workspace could be allocated, else the workspace measured with.
  std::size_t measured_up_to(CandidateKind kind) const;
  /// How many candidate timings this benchmarker has run.
  int timings_run() const { return rig_->timings_run(); }
  const ConvKey& key() const { return rig_->key(); }
  cudnnHandle_t handle() const { return rig_->handle(); }
  SearchMode mode() const { return rig_->settings().mode; }

 private:
  Benchmarker() = default;
  std::unique_ptr<BenchmarkRig> rig_;
  /// After rig_: destroyed before the rig they measure on.
  std::map<CandidateKind, std::unique_ptr<KindMeasurer>> measurers_;
};

}  // namespace ucudnn::runtime
