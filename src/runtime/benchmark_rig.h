#pragma once
// What every kind's measurer times candidates with, for one convolution at its full batch:
// random input and output buffers, a workspace, the filter descriptor, and the timer.
//
// A candidate is timed on the handle's stream: warm-up calls, then the median of several
// samples, each a few calls queued behind a StreamGate and run back to back (as a replayed plan
// runs them). A sample gives the GPU's time per call (CUDA events) and the host's time to issue
// one (steady clock): a replayed call costs the first, a call the host issues the longer of the
// two (Measurement::cost_ms). Inputs are random: timings on zeros can flatter a kernel.
//
// The fast search (core/search_mode.h) takes fewer samples where they agree, and stops timing a
// candidate early where it cannot beat the bound it is given (core/timing_rules.h).

#include <cudnn.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>

#include "core/conv_key.h"
#include "core/knob_sweep.h"
#include "core/search_mode.h"
#include "core/timing_rules.h"
#include "runtime/cuda_status.h"
#include "runtime/cudnn_shim.h"
#include "runtime/descriptors.h"
#include "runtime/device_buffer.h"

namespace ucudnn::runtime {

struct BenchmarkSettings {
  SearchMode mode = SearchMode::kExhaustive;
  int warmup_calls = 1;
  int timed_calls = 5;             ///< samples at most; the median is kept
  int agreeing_calls = 5;          ///< samples after which timing stops if they agree
  double agreement = 0.0;          ///< samples agree where (max - min) / min is below this
  float sample_ms = 1.0f;          ///< each sample runs back-to-back calls for about this long
  int max_calls_per_sample = 16;
  bool cut_short = false;          ///< stop after one sample where a candidate cannot win
  KnobSearch engine_knobs = KnobSearch::kHeuristics;  ///< UCUDNN_ENGINE_KNOBS: which engine configurations

  /// The settings of a search mode: exhaustive times every candidate with every sample.
  static BenchmarkSettings of(SearchMode mode);
};

class BenchmarkRig {
 public:
  /// Allocates and fills the buffers of `key` at its full batch; no workspace yet.
  static Status create(cudnnHandle_t handle, const ConvKey& key, BenchmarkSettings settings,
                       std::unique_ptr<BenchmarkRig>* out);
  BenchmarkRig(const BenchmarkRig&) = delete;
  BenchmarkRig& operator=(const BenchmarkRig&) = delete;

  cudnnHandle_t handle() const { return handle_; }
  const ConvKey& key() const { return key_; }
  ConvBuffers buffers() const { return ConvBuffers{x_.get(), w_.get(), y_.get()}; }
  cudnnFilterDescriptor_t filter() const { return filter_.get(); }
  void* workspace() const { return workspace_.get(); }
  std::size_t workspace_bytes() const { return workspace_bytes_; }

  /// Allocates a workspace of `wanted` bytes, or of what the device can spare (keeping a margin
  /// for cuDNN, halving until an allocation succeeds); workspace_bytes() says what it got. A
  /// workspace already as large is kept (the rig serves every kind's measurer).
  Status allocate_workspace(std::size_t wanted);
  /// Makes the workspace at least `bytes` if the device has that much to spare.
  bool grow_workspace(std::size_t bytes);

  struct CallTimes {
    double gpu_ms = 0;       ///< median GPU time per call, calls back to back
    double host_ms = 0;      ///< median host time to issue one call
    bool cut_short = false;  ///< one call only: it could not beat the bound
  };
  /// Times `enqueue` (one call on the handle's stream): medians of samples of back-to-back calls.
  /// With a bound (and settings that cut short), a first call slower than the bound ends it.
  Status time_candidate(const std::function<Status()>& enqueue, CallTimes* times,
                        const std::optional<TimingBound>& bound = std::nullopt);
  const BenchmarkSettings& settings() const { return settings_; }
  /// How many candidate timings this rig has run.
  int timings_run() const { return timings_run_; }

 private:
  BenchmarkRig() = default;

  cudnnHandle_t handle_ = nullptr;
  ConvKey key_;
  BenchmarkSettings settings_;
  std::size_t workspace_bytes_ = 0;  ///< allocated for the candidates
  DeviceBuffer x_, w_, y_, workspace_;
  FilterDescriptor filter_;
  CudaEvent start_, stop_;
  int timings_run_ = 0;
};

}  // namespace ucudnn::runtime
