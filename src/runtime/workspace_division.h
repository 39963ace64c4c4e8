#pragma once
// Workspace division at run time (WD mode): one workspace budget for all convolutions of the
// process on a device, divided among its kernels by the WD integer program.
//
// Get/find calls register kernels (and benchmark them); the first convolution call, or
// ucudnnOptimize, solves the program, allocates one buffer of the chosen total and gives each
// kernel a segment of it; the framework's own workspace is not used. Identical kernels (the same
// ConvKey and layer id) share a segment; calls on different streams are ordered on it with CUDA
// events. A kernel first seen after the optimisation triggers a new one (with a warning); the old
// buffer is freed only once the work queued on it has finished. Thread-safe.

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "core/batch_policy.h"
#include "core/conv_key.h"
#include "runtime/cuda_status.h"
#include "runtime/device_buffer.h"
#include "runtime/executor.h"

namespace ucudnn {

/// A kernel in WD mode: its convolution and the layer it belongs to (-1: any layer).
struct WdKey {
  ConvKey key;
  int layer_id = -1;
  bool operator<(const WdKey& o) const;
};

/// Where a kernel runs: its plan, and its segment of the shared buffer.
struct WdAssignment {
  std::shared_ptr<const ExecutablePlan> plan;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

struct WdSummary {
  std::size_t budget = 0;
  std::size_t buffer_bytes = 0;  ///< allocated for all segments
  int kernels = 0;
  int variables = 0;
  double solve_ms = 0;
  double predicted_ms = 0;  ///< sum over kernels of count * planned time
  int optimizations = 0;
};

class WorkspaceDivision {
 public:
  static WorkspaceDivision& instance();

  /// 0 turns WD mode off. Takes effect at the next optimisation.
  void set_budget(std::size_t bytes) { budget_ = bytes; }
  std::size_t budget() const { return budget_.load(); }
  bool enabled() const { return budget_.load() > 0; }

  /// Registers (and benchmarks) a kernel; `predicted_ms` gets the fastest time it can have within
  /// the whole budget. Calls for kernels known to an optimisation change nothing.
  Status register_kernel(cudnnHandle_t handle, const WdKey& key, BatchSizePolicy policy, double* predicted_ms,
                         bool* deterministic);
  /// Solves the program for the kernels registered on `device` and lays out the buffer.
  Status optimize(cudnnHandle_t handle, int device);
  /// Runs a kernel in its segment, on the handle's stream, after the last use of the segment on
  /// another stream. Optimises first where needed.
  /// `may_optimize` false (during graph capture): fails instead of benchmarking or allocating.
  Status run(cudnnHandle_t handle, const WdKey& key, BatchSizePolicy policy, bool may_optimize, const void* alpha,
             const void* beta, const ConvBuffers& buffers);
  WdSummary summary(int device);
  /// The plan an optimised division gives a kernel; null if it has none yet.
  std::shared_ptr<const ExecutablePlan> plan_of(const WdKey& key);

 private:
  struct Kernel {
    BatchSizePolicy policy = BatchSizePolicy::kPowerOfTwo;
    int count = 0;  ///< get/find calls before the first optimisation: the weight of its time
    std::shared_ptr<const ExecutablePlan> plan;
    std::size_t offset = 0, bytes = 0;
    cudaEvent_t last_use = nullptr;  ///< recorded after each run
    cudaStream_t last_stream = nullptr;
    bool used = false;
  };
  struct Retired {
    DeviceBuffer buffer;
    std::vector<cudaEvent_t> events;  ///< the last uses of its segments
  };
  struct Device {
    std::map<WdKey, Kernel> kernels;
    bool optimized = false;
    DeviceBuffer buffer;
    std::vector<Retired> retired;
    WdSummary summary;
  };

  Status optimize_locked(cudnnHandle_t handle, Device& device);
  void free_finished(Device& device);

  std::atomic<std::size_t> budget_{0};
  std::mutex mutex_;
  std::map<int, Device> devices_;
  /// Kernels that could not be benchmarked: remembered so that every later call does not try again.
  std::map<WdKey, Status> failures_;
};

}  // namespace ucudnn
