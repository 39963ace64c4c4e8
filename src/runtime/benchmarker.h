#pragma once
// Times one kind of candidate for one convolution at several micro-batch sizes.
//
// Legacy candidates come from cudnnFind*AlgorithmEx (status, workspace, math type); engine
// candidates are the configurations cuDNN's graph API offers (runtime/backend_graph.h), each run
// from an execution plan. Each candidate is timed on the handle's stream: one warm-up call, then
// the median of several samples, each a few calls queued behind a StreamGate and run back to back
// (as a replayed plan runs them). A sample gives the GPU's time per call (CUDA events) and the
// host's time to issue one (steady clock): a replayed call costs the first, a call the host
// issues the longer of the two (Measurement::cost_ms). Inputs are random.
// Rows are unfiltered: the workspace is what the hungriest candidate needs (where the device has
// that much; for engines the buffer grows as they are met), so the rows serve any workspace
// limit. Candidates that fail (out of memory included) are skipped.

#include <cudnn.h>

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "core/candidates.h"
#include "core/conv_key.h"
#include "core/measurement.h"
#include "runtime/cuda_status.h"
#include "runtime/descriptors.h"
#include "runtime/device_buffer.h"

namespace ucudnn {

struct BenchmarkSettings {
  int warmup_calls = 1;
  int timed_calls = 5;             ///< samples; the median is kept
  float sample_ms = 1.0f;          ///< each sample runs back-to-back calls for about this long
  int max_calls_per_sample = 16;
};

class Benchmarker {
 public:
  /// Allocates random buffers for `key` at its full batch and, for legacy candidates, the
  /// workspace of its hungriest algorithm (less if the device has less free memory).
  static Status create(cudnnHandle_t handle, const ConvKey& key, CandidateKind kind, BenchmarkSettings settings,
                       std::unique_ptr<Benchmarker>* out);
  Benchmarker(const Benchmarker&) = delete;
  Benchmarker& operator=(const Benchmarker&) = delete;

  /// Measures, at one micro-batch size, every candidate that `known` lacks.
  Status measure(int micro_batch, const std::vector<Measurement>& known, std::vector<Measurement>* measured);

  /// The workspace limit up to which the rows are complete: unbounded (SIZE_MAX) when every
  /// candidate's workspace could be allocated, else the workspace measured with.
  std::size_t measured_up_to() const { return measured_up_to_; }
  /// How many candidate timings this benchmarker has run.
  int timings_run() const { return timings_run_; }

 private:
  Benchmarker() = default;
  Status measure_legacy(int micro_batch, const std::vector<Measurement>& known, std::vector<Measurement>* measured);
  Status measure_engines(int micro_batch, const std::vector<Measurement>& known, std::vector<Measurement>* measured);
  struct CallTimes {
    double gpu_ms = 0;   ///< median GPU time per call, calls back to back
    double host_ms = 0;  ///< median host time to issue one call
  };
  /// Times `enqueue` (one call on the handle's stream): medians of samples of back-to-back calls.
  Status time_candidate(const std::function<Status()>& enqueue, CallTimes* times);
  /// Makes the workspace at least `bytes` if the device has that much to spare.
  bool grow_workspace(std::size_t bytes);

  cudnnHandle_t handle_ = nullptr;
  ConvKey key_;
  CandidateKind kind_ = CandidateKind::kLegacy;
  BenchmarkSettings settings_;
  std::size_t workspace_bytes_ = 0;  ///< allocated for the candidates
  std::size_t measured_up_to_ = 0;
  DeviceBuffer x_, w_, y_, workspace_;
  FilterDescriptor filter_;
  std::map<int, ConvolutionDescriptor> conv_by_math_;
  CudaEvent start_, stop_;
  int timings_run_ = 0;
};

}  // namespace ucudnn
