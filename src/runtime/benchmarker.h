#pragma once
// Times one kind of candidate for one convolution at several micro-batch sizes: a BenchmarkRig
// (buffers, workspace, timer; runtime/benchmark_rig.h) and the kind's measurer
// (runtime/candidate_runtime.h), which knows what its candidates are and how one runs.
// Rows are unfiltered: the workspace is what the hungriest candidate needs (where the device has
// that much), so the rows serve any workspace limit. Candidates that fail (out of memory
// included) are skipped.

#include <cudnn.h>

#include <cstddef>
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
  /// Allocates random buffers for `key` at its full batch and what the kind measures with (legacy
  /// candidates: the workspace of the hungriest algorithm, less if the device has less free).
  static Status create(cudnnHandle_t handle, const ConvKey& key, CandidateKind kind, BenchmarkSettings settings,
                       std::unique_ptr<Benchmarker>* out);
  Benchmarker(const Benchmarker&) = delete;
  Benchmarker& operator=(const Benchmarker&) = delete;

  /// Measures, at one micro-batch size, every candidate that `known` lacks.
  Status measure(int micro_batch, const std::vector<Measurement>& known, std::vector<Measurement>* measured) {
    measured->clear();
    return measurer_->measure(micro_batch, known, measured);
  }

  /// The workspace limit up to which the rows are complete: unbounded (SIZE_MAX) when every
  /// candidate's workspace could be allocated, else the workspace measured with.
  std::size_t measured_up_to() const { return measurer_->measured_up_to(); }
  /// How many candidate timings this benchmarker has run.
  int timings_run() const { return rig_->timings_run(); }

 private:
  Benchmarker() = default;
  std::unique_ptr<BenchmarkRig> rig_;
  std::unique_ptr<KindMeasurer> measurer_;  ///< after rig_: destroyed before the rig it measures on
};

}  // namespace ucudnn::runtime
