#pragma once
// Holds a stream closed while the host queues work on it, then opens it: the queued calls run
// back to back, so events around them measure the GPU's time and not the host's launch overhead
// (about 50-100 us per legacy cuDNN call with cuDNN 9, more than a small micro-batch takes).
//
//   StreamGate gate;
//   gate.close(stream);            // a host function on the stream waits for open()
//   ...record event, queue calls, record event...
//   gate.open();                   // the stream runs everything queued
//
// The host function never waits longer than `max_hold`: should something the host queues block
// on the stream (a synchronous call inside cuDNN), the gate opens by itself and `timed_out()`
// says the measurement included the host's time. Header-only so the benchmark tools share it.

#include <cuda_runtime_api.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

namespace ucudnn::runtime {

class StreamGate {
 public:
  explicit StreamGate(std::chrono::milliseconds max_hold = std::chrono::milliseconds(2000)) : max_hold_(max_hold) {}
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;
  ~StreamGate() { open(); }

  /// Queues the hold on `stream`. False if CUDA refused the host function (the stream runs freely).
  bool close(cudaStream_t stream) {
    open();  // a previous hold still pending is released first
    state_ = std::make_shared<State>();
    state_->max_hold = max_hold_;
    // The host function owns its own reference: the gate may be gone by the time it runs.
    auto* ticket = new std::shared_ptr<State>(state_);
    if (cudaLaunchHostFunc(stream, &StreamGate::hold, ticket) != cudaSuccess) {
      (void)cudaGetLastError();
      delete ticket;
      state_.reset();
      return false;
    }
    return true;
  }

  void open() {
    if (!state_) return;
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->open = true;
    state_->opened.notify_all();
  }

  /// Whether the last hold ended by itself rather than by open(): meaningful once the stream has
  /// passed the gate (after synchronising on something queued behind it).
  bool timed_out() const {
    if (!state_) return false;
    std::lock_guard<std::mutex> lock(state_->mutex);
    return state_->timed_out;
  }

 private:
  struct State {
    std::mutex mutex;
    std::condition_variable opened;
    std::chrono::milliseconds max_hold{0};
    bool open = false;
    bool timed_out = false;
  };

  static void CUDART_CB hold(void* ticket) {
    std::unique_ptr<std::shared_ptr<State>> owned(static_cast<std::shared_ptr<State>*>(ticket));
    State& state = **owned;
    std::unique_lock<std::mutex> lock(state.mutex);
    state.timed_out = !state.opened.wait_for(lock, state.max_hold, [&state] { return state.open; });
  }

  std::chrono::milliseconds max_hold_;
  std::shared_ptr<State> state_;
};

}  // namespace ucudnn::runtime
