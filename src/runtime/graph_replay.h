#pragma once
// Replays a plan's cuDNN calls as a CUDA graph once the same call recurs (runtime/replay_cache.h
// says when and why). Graphs are captured on a stream and cuDNN handle of ucudnn's own per device,
// never on the caller's stream (which may belong to a capture of the caller's), and launched on
// the caller's stream. A plan whose calls cannot be captured runs them directly from then on.

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <chrono>
#include <functional>
#include <mutex>

#include "core/expected.h"
#include "runtime/owned.h"
#include "runtime/replay_cache.h"

namespace ucudnn::runtime {

/// Where a call's work goes: the caller's handle and its stream, and whether it may be replayed
/// (not when replay is switched off, nor while the stream is being captured by the caller).
struct CallTarget {
  cudnnHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;  ///< the handle's stream
  bool may_replay = false;
};

/// What GraphReplay::run did with a call.
struct ReplayOutcome {
  bool replayed = false;         ///< a graph ran
  bool of_direct = false;        ///< ... one of the direct calls (its `captured` calls could not be)
  bool captured = false;         ///< ... captured for this call
  double capture_seconds = 0;    ///< host time of the capture and instantiation
};

class GraphReplay {
 public:
  /// Queues a call's work on a handle's stream: `direct(handle)` on `target.handle`, or, once the
  /// call recurs, the work `captured(handle)` queues, captured as a graph and launched on
  /// `target.stream`. The two may differ (a plan for replay, priced without the host's time per
  /// call) but must compute the same result, and depend on nothing but the plan and what
  /// `signature` holds; where `captured` cannot be captured, `direct` is. `*outcome` says whether
  /// a graph ran, and whether it was captured.
  template <typename Direct, typename Captured>
  Status run(int device, const CallTarget& target, const CallSignature& signature, ReplayOutcome* outcome,
             Direct&& direct, Captured&& captured) {
    *outcome = ReplayOutcome{};
    if (!target.may_replay) return direct(target.handle);
    std::unique_lock<std::mutex> lock(mutex_);
    CapturedGraph* graph = nullptr;
    switch (cache_.decide(signature, &graph)) {
      case ReplayAction::kLaunch:
        outcome->replayed = true;
        outcome->of_direct = graph->of_direct;
        return launch(graph->exec, target.stream);  // under the lock: a store() may evict it
      case ReplayAction::kRunDirectly: {
        // Once per plan: calls whose buffers never recur run here every time.
        const bool prepare_now = !prepared_ && !cache_.refused();
        prepared_ = prepared_ || prepare_now;
        lock.unlock();
        if (prepare_now) prepare(device);
        return direct(target.handle);
      }
      case ReplayAction::kCapture:
        break;
    }
    CapturedGraph graph_exec;
    const auto capturing = std::chrono::steady_clock::now();
    Status status = capture(device, captured, &graph_exec.exec);
    // A replay plan that cannot be captured (an engine plan built or refused inside the capture)
    // must not cost the plan its graphs: capture the direct calls instead.
    if (!status.ok()) {
      graph_exec.of_direct = true;
      status = capture(device, direct, &graph_exec.exec);
    }
    outcome->capture_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - capturing).count();
    if (!status.ok()) {  // neither could be captured
      cache_.refuse();
      lock.unlock();
      note_refusal(status);
      return direct(target.handle);  // nothing ran during the capture
    }
    outcome->replayed = true;
    outcome->of_direct = graph_exec.of_direct;
    outcome->captured = true;
    return launch(cache_.store(signature, std::move(graph_exec))->exec, target.stream);
  }

  /// Whether capturing failed for this plan (its calls run directly for good).
  bool refused() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return cache_.refused();
  }

 private:
  /// Makes the device's capture handle and stream, if they are not made yet, at a call's first
  /// sight rather than at its capture: cudnnCreate loads modules, which waits for the whole device,
  /// and by the call's recurrence the caller's streams may hold work that waits for the host (a
  /// host function), which would then never finish. A failure is left for the capture to report.
  static void prepare(int device);
  static Status capture(int device, const std::function<Status(cudnnHandle_t)>& enqueue, CudaGraphExec* out);
  static Status launch(const CudaGraphExec& graph, cudaStream_t stream);
  static void note_refusal(const Status& why);

  /// A graph, and which of the two callables it holds.
  struct CapturedGraph {
    CudaGraphExec exec;
    bool of_direct = false;
  };

  mutable std::mutex mutex_;
  ReplayCache<CapturedGraph> cache_;
  bool prepared_ = false;  ///< prepare() was called for this plan's device
};

}  // namespace ucudnn::runtime
