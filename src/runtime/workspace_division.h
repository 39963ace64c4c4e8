#pragma once
// Workspace division at run time (WD mode): one workspace budget for all convolutions of the
// process on a device, divided among its kernels by the WD integer program.
//
// Get/find calls register kernels (their rows come from the plan builder). Dividing solves the program
// over the registered kernels, gives each kernel a plan and a segment of one buffer (a pure
// layout: lay_out_segments) and needs no device; the first convolution call, or ucudnnOptimize,
// divides where needed and then allocates the buffer of the chosen total and the kernels' events;
// the framework's own workspace is not used. Identical kernels (the same ConvKey and layer id)
// share a segment; calls on different streams are ordered on it with CUDA events. A kernel first
// seen after a division triggers a new one (with a warning); the old buffer is freed only once
// the work queued on it has finished. Thread-safe.

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <atomic>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "core/batch_policy.h"
#include "core/candidate_kinds.h"
#include "core/conv_key.h"
#include "optimize/wd_optimizer.h"
#include "runtime/cuda_status.h"
#include "runtime/device_buffer.h"
#include "runtime/executor.h"
#include "runtime/graph_replay.h"
#include "runtime/owned.h"

namespace ucudnn::runtime {
using ucudnn::optimize::MicroBatchSplit;
using ucudnn::optimize::WdKernel;
using ucudnn::optimize::WdSolution;


class PlanBuilder;

/// A kernel in WD mode: its convolution and the layer it belongs to (-1: any layer).
struct WdKey {
  ConvKey key;
  int layer_id = -1;
  bool operator<(const WdKey& o) const;
};

struct WdSummary {
  std::size_t buffer_bytes = 0;  ///< the segments' total
  int kernels = 0;
  int variables = 0;
  double solve_ms = 0;
  double predicted_ms = 0;  ///< sum over kernels of count * planned time
  int optimizations = 0;    ///< divisions so far
};

/// cudaMalloc's alignment, kept for every segment.
inline constexpr std::size_t kSegmentAlignment = 256;

/// Segments laid out back to back in one buffer, each starting on an `alignment` boundary.
struct SegmentLayout {
  std::vector<std::size_t> offsets;  ///< one per segment
  std::size_t total = 0;             ///< the buffer's size: the last segment's end, aligned
};
/// `n` rounded up to a multiple of `alignment`.
std::size_t align_up(std::size_t n, std::size_t alignment = kSegmentAlignment);
/// Lays out segments of `bytes` in order; a pure function.
SegmentLayout lay_out_segments(const std::vector<std::size_t>& bytes, std::size_t alignment = kSegmentAlignment);

/// Where a kernel's segment lies in the division's buffer.
struct WdSegment {
  std::size_t offset = 0;
  std::size_t bytes = 0;  ///< the plan's workspace; the segment extends to the next aligned offset
};

class WorkspaceDivision {
 public:
  /// The process's division, over PlanBuilder::instance() (built in api/process_wiring.cpp).
  static WorkspaceDivision& instance();
  /// `time_limit_seconds`: how long the integer program may search (UCUDNN_WD_TIME_LIMIT).
  WorkspaceDivision(PlanBuilder& builder, double time_limit_seconds);
  WorkspaceDivision(const WorkspaceDivision&) = delete;
  WorkspaceDivision& operator=(const WorkspaceDivision&) = delete;

  /// The budget the next division shares out; runtime/planner.h switches WD mode on and off with it.
  void set_budget(std::size_t bytes) { budget_ = bytes; }
  std::size_t budget() const { return budget_.load(); }

  /// Registers a kernel (its rows measured through the plan builder); `predicted_ms` gets the fastest
  /// time it can have within the whole budget. Calls for kernels known to a division change
  /// nothing and answer from what the kernel's registration found, without building its front
  /// again (Caffe asks on every reshape, so every iteration). A kernel that cannot be measured
  /// fails, now and on every later call.
  Status register_kernel(cudnnHandle_t handle, const WdKey& key, BatchSizePolicy policy, CandidateSet candidates,
                         double* predicted_ms,
                         bool* deterministic);
  /// Divides the budget among the kernels registered on `device`: plans and segments, no device
  /// memory (the buffer follows at optimize or run).
  Status divide(cudnnHandle_t handle, int device);
  /// Divides and allocates the buffer and the kernels' events.
  Status optimize(cudnnHandle_t handle, int device);
  /// Runs a kernel in its segment, on the target's stream, after the last use of the segment on
  /// another stream. Divides and allocates first where needed.
  /// `may_optimize` false (during graph capture): fails instead of measuring or allocating.
  Status run(const CallTarget& target, const WdKey& key, BatchSizePolicy policy, CandidateSet candidates,
             bool may_optimize,
             const void* alpha, const void* beta, const ConvBuffers& buffers);

  WdSummary summary(int device);
  /// Pareto fronts that registration has built so far (tests check that a known kernel costs none).
  long fronts_built() const { return fronts_built_.load(); }
  /// Whether the kernels registered on `device` are divided (no kernel came after the division).
  bool divided(int device);
  /// The plan a division gives a kernel; null if it has none yet.
  std::shared_ptr<const ExecutablePlan> plan_of(const WdKey& key);
  /// The segment a division gives a kernel; none if it has none yet.
  std::optional<WdSegment> segment_of(const WdKey& key);

 private:
  struct Kernel {
    BatchSizePolicy policy = BatchSizePolicy::kPowerOfTwo;
    CandidateSet candidates = CandidateSet::kBoth;
    int count = 0;  ///< get/find calls before the first division: the weight of its time
    /// The answer of its last registration, and the budget it was given under.
    double predicted_ms = 0;
    bool deterministic = false;
    std::size_t answered_budget = 0;
    std::shared_ptr<const ExecutablePlan> plan;
    WdSegment segment;
    CudaEvent last_use;  ///< recorded after each run
    cudaStream_t last_stream = nullptr;
    bool used = false;
  };
  struct Retired {
    DeviceBuffer buffer;
    std::vector<CudaEvent> events;  ///< the last uses of its segments
  };
  struct Device {
    std::map<WdKey, Kernel> kernels;
    bool divided = false;
    bool allocated = false;  ///< the buffer and events of the current division exist
    DeviceBuffer buffer;
    std::vector<Retired> retired;
    WdSummary summary;
  };
  /// The WD program of a device's kernels, and what its solution is turned back into.
  struct Problem {
    std::vector<const WdKey*> keys;
    std::vector<WdKernel> kernels;  ///< fronts with segment-aligned workspaces, as the buffer holds them
    std::vector<std::vector<MicroBatchSplit>> fronts;  ///< the same fronts as measured
  };

  /// The kernel's desirable configurations, from rows measured (or looked up) by the plan builder.
  Status front_of(cudnnHandle_t handle, const ConvKey& key, BatchSizePolicy policy, CandidateSet candidates,
                  std::vector<MicroBatchSplit>* front);
  Status build_problem(cudnnHandle_t handle, const Device& device, Problem* problem);
  /// The plan of each kernel's chosen configuration.
  static Status build_plans(const Device& device, const Problem& problem, const WdSolution& solution,
                            std::vector<std::shared_ptr<const ExecutablePlan>>* plans);
  /// Gives the kernels their plans and segments and records the summary.
  static void install(Device& device, const Problem& problem, const WdSolution& solution,
                      std::vector<std::shared_ptr<const ExecutablePlan>> plans);
  Status divide_locked(cudnnHandle_t handle, Device& device);
  /// Allocates the division's buffer and events, retiring the old ones.
  static Status allocate_locked(Device& device);
  static void free_finished(Device& device);

  PlanBuilder& builder_;
  const double time_limit_seconds_;
  std::atomic<std::size_t> budget_{0};
  std::atomic<long> fronts_built_{0};
  std::mutex mutex_;
  std::map<int, Device> devices_;
  /// Kernels that could not be measured: remembered so that every later call does not try again.
  std::map<WdKey, Status> failures_;
};

}  // namespace ucudnn::runtime
