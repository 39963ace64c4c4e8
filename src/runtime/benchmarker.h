#pragma once
// Times cuDNN's algorithms for one convolution at several micro-batch sizes.
//
// Candidates come from cudnnFind*AlgorithmEx (status, workspace, math type) run with a workspace
// of at most the limit; each successful one is then timed on its own with CUDA events on the
// handle's stream: one warm-up call, then the median of several calls. Inputs are random, not
// zero. Candidates that fail (out of memory included) are skipped.

#include <cudnn.h>

#include <cstddef>
#include <map>
#include <memory>
#include <vector>

#include "core/conv_key.h"
#include "core/measurement.h"
#include "core/status.h"
#include "runtime/descriptors.h"
#include "runtime/device_buffer.h"

namespace ucudnn {

struct BenchmarkSettings {
  int warmup_calls = 1;
  int timed_calls = 5;
};

class Benchmarker {
 public:
  /// Allocates random buffers for `key` at its full batch and a workspace of up to `workspace_limit`
  /// bytes (less if the device has less free memory).
  static Status create(cudnnHandle_t handle, const ConvKey& key, std::size_t workspace_limit,
                       BenchmarkSettings settings, std::unique_ptr<Benchmarker>* out);
  ~Benchmarker();
  Benchmarker(const Benchmarker&) = delete;
  Benchmarker& operator=(const Benchmarker&) = delete;

  /// Measures, at one micro-batch size, every candidate within the limit that `known` lacks.
  Status measure(int micro_batch, const std::vector<Measurement>& known, std::vector<Measurement>* measured);

  /// The workspace candidates were measured with: the limit, or less where memory was short.
  std::size_t effective_workspace_limit() const { return workspace_limit_; }
  /// How many candidate timings this benchmarker has run.
  int timings_run() const { return timings_run_; }

 private:
  Benchmarker() = default;
  Status time_candidate(const ConvDescriptors& d, int algo, double* median_ms);

  cudnnHandle_t handle_ = nullptr;
  ConvKey key_;
  BenchmarkSettings settings_;
  std::size_t workspace_limit_ = 0;
  DeviceBuffer x_, w_, y_, workspace_;
  FilterDescriptor filter_;
  std::map<int, ConvolutionDescriptor> conv_by_math_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  int timings_run_ = 0;
};

}  // namespace ucudnn
