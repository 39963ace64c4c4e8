#include "runtime/benchmark_rig.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "core/logging.h"
#include "core/statistics.h"
#include "runtime/random_fill.h"
#include "runtime/stream_gate.h"

namespace ucudnn::runtime {
namespace {

// What a workspace leaves free on the device, for cuDNN's own allocations.
constexpr std::size_t kDeviceMargin = std::size_t{256} << 20;

std::size_t filter_elements(const FilterLayout& w) {
  std::size_t n = 1;
  for (int d : w.dims) n *= static_cast<std::size_t>(d);
  return n;
}

// How long a sample's gate holds the stream at most. Issuing a sample's calls takes well under a
// millisecond; a call whose issue waits on the device (a first call that allocates, say) would
// otherwise wait out the gate's default two seconds. A sample that outlasts it counts its calls'
// launch time too (the gate says so in the log).
constexpr std::chrono::milliseconds kGateHold{50};

}  // namespace

BenchmarkSettings BenchmarkSettings::of(SearchMode mode) {
  BenchmarkSettings settings;
  settings.mode = mode;
  if (mode == SearchMode::kExhaustive) return settings;
  // Samples of about half a millisecond each, two at least; more only where they disagree by 3%
  // or more (five at most).
  settings.agreeing_calls = 2;
  settings.agreement = 0.03;
  settings.sample_ms = 0.5f;
  settings.cut_short = true;
  return settings;
}

Status BenchmarkRig::create(cudnnHandle_t handle, const ConvKey& key, BenchmarkSettings settings,
                            std::unique_ptr<BenchmarkRig>* out) {
  const SearchPhaseClock clock(key.op, SearchPhase::kSetup);
  std::unique_ptr<BenchmarkRig> rig(new BenchmarkRig());
  rig->handle_ = handle;
  rig->key_ = key;
  rig->settings_ = settings;
  const std::size_t x_elements = extent_elements(key.x);
  const std::size_t y_elements = extent_elements(key.y);
  const std::size_t w_elements = filter_elements(key.w);
  UCUDNN_TRY(rig->x_.allocate(x_elements * element_size(key.x.data_type)));
  UCUDNN_TRY(rig->y_.allocate(y_elements * element_size(key.y.data_type)));
  UCUDNN_TRY(rig->w_.allocate(w_elements * element_size(key.w.data_type)));
  // Every buffer gets random values: timings on zeros can flatter a kernel.
  UCUDNN_TRY(fill_random(rig->x_, key.x.data_type, x_elements, 1));
  UCUDNN_TRY(fill_random(rig->y_, key.y.data_type, y_elements, 2));
  UCUDNN_TRY(fill_random(rig->w_, key.w.data_type, w_elements, 3));
  // The fills' device-to-device copies run on the legacy default stream, which a non-blocking
  // benchmarking stream does not wait for.
  UCUDNN_CHECK_CUDA(cudaStreamSynchronize(nullptr));
  UCUDNN_TRY(make_filter_descriptor(key.w, &rig->filter_));
  UCUDNN_TRY(create_event(cudaEventDefault, &rig->start_));
  UCUDNN_TRY(create_event(cudaEventDefault, &rig->stop_));
  *out = std::move(rig);
  return Status::success();
}

Status BenchmarkRig::allocate_workspace(std::size_t wanted) {
  if (wanted <= workspace_bytes_) return Status::success();  // another kind's measurer made it larger
  const SearchPhaseClock clock(key_.op, SearchPhase::kSetup);
  std::size_t free_bytes = 0, total_bytes = 0;
  UCUDNN_CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  std::size_t bytes = std::min(wanted, free_bytes > kDeviceMargin ? free_bytes - kDeviceMargin : 0);
  while (bytes > 0 && !workspace_.allocate(bytes).ok()) bytes /= 2;
  workspace_bytes_ = bytes;
  return Status::success();
}

bool BenchmarkRig::grow_workspace(std::size_t bytes) {
  if (bytes <= workspace_bytes_) return true;
  const SearchPhaseClock clock(key_.op, SearchPhase::kSetup);
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return false;
  if (free_bytes + workspace_bytes_ < bytes + kDeviceMargin) return false;
  if (!workspace_.allocate(bytes).ok()) {  // frees the old buffer first
    workspace_bytes_ = workspace_.allocate(workspace_bytes_).ok() ? workspace_bytes_ : 0;
    return false;
  }
  workspace_bytes_ = bytes;
  return true;
}

Status BenchmarkRig::time_candidate(const std::function<Status()>& enqueue, CallTimes* times,
                                    const std::optional<TimingBound>& bound) {
  const SearchPhaseClock clock(key_.op, SearchPhase::kTiming);
  cudaStream_t stream = nullptr;
  UCUDNN_CHECK_CUDNN(cudnnGetStream(handle_, &stream));

  // A sample queues `calls` calls behind a closed gate and times them twice: on the host, what
  // issuing one call costs (the gate keeps the GPU from pushing back); on the GPU, with events,
  // what the calls cost run back to back, as a replayed graph runs them
  // (runtime/graph_replay.h). Both are kept: a replayed call costs the GPU's time only, a call
  // issued by the host costs the longer of the two (Measurement::cost_ms).
  auto time_calls = [&](int calls, double* gpu_ms, double* host_ms) -> Status {
    StreamGate gate(kGateHold);
    gate.close(stream);
    UCUDNN_CHECK_CUDA(cudaEventRecord(start_.get(), stream));
    const auto issuing = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c) UCUDNN_TRY(enqueue());
    const auto issued = std::chrono::steady_clock::now();
    UCUDNN_CHECK_CUDA(cudaEventRecord(stop_.get(), stream));
    gate.open();
    UCUDNN_CHECK_CUDA(cudaEventSynchronize(stop_.get()));
    float elapsed_ms = 0;
    UCUDNN_CHECK_CUDA(cudaEventElapsedTime(&elapsed_ms, start_.get(), stop_.get()));
    if (gate.timed_out()) UCUDNN_LOG_DEBUG("a timing sample waited for the host: it includes launch overhead");
    *gpu_ms = static_cast<double>(elapsed_ms) / calls;
    *host_ms = std::chrono::duration<double, std::milli>(issued - issuing).count() / calls;
    return Status::success();
  };
  // The warm-up calls are timed too, without a gate (a kernel's first call may load its module
  // or wait on the device, which a closed gate would hold up), so their time includes such
  // one-time work: a candidate slower than the bound by a factor and a slack that no loading
  // explains stops there, as one that takes a hundred milliseconds per call would otherwise
  // cost as much again.
  double warm = 0, warm_host = 0;
  for (int i = 0; i < settings_.warmup_calls; ++i) {
    UCUDNN_CHECK_CUDA(cudaEventRecord(start_.get(), stream));
    const auto issuing = std::chrono::steady_clock::now();
    UCUDNN_TRY(enqueue());
    warm_host = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - issuing).count();
    UCUDNN_CHECK_CUDA(cudaEventRecord(stop_.get(), stream));
    UCUDNN_CHECK_CUDA(cudaEventSynchronize(stop_.get()));
    float elapsed_ms = 0;
    UCUDNN_CHECK_CUDA(cudaEventElapsedTime(&elapsed_ms, start_.get(), stop_.get()));
    warm = elapsed_ms;
  }
  // A candidate cut short keeps the times of the call that decided it.
  auto cut_at = [&](double gpu_ms, double host_ms) {
    times->gpu_ms = gpu_ms;
    times->host_ms = host_ms;
    times->cut_short = true;
    ++timings_run_;
    Statistics::instance().count_search(key_.op, SearchCount::kCutShort);
    return Status::success();
  };
  if (settings_.cut_short && bound && cut_at_warm_up(warm, *bound)) {
    return cut_at(warm, warm_host);  // a first call's host time: more than later calls take
  }
  double single = 0, single_host = 0;
  UCUDNN_TRY(time_calls(1, &single, &single_host));
  // The bound's candidate needs no more workspace: its first call is all a slower one gets.
  if (settings_.cut_short && bound && cut_after_first_call(single, single_host, *bound)) {
    return cut_at(single, single_host);
  }
  const int calls = calls_per_sample(single, settings_.sample_ms, settings_.max_calls_per_sample);
  std::vector<double> gpu, host;
  times->cut_short = false;
  if (settings_.mode == SearchMode::kFast && calls == 1) {
    // A call long enough to be a sample alone: the first call was one.
    gpu.push_back(single);
    host.push_back(single_host);
  }
  while (static_cast<int>(gpu.size()) < settings_.timed_calls) {
    double gpu_ms = 0, host_ms = 0;
    UCUDNN_TRY(time_calls(calls, &gpu_ms, &host_ms));
    gpu.push_back(gpu_ms);
    host.push_back(host_ms);
    if (static_cast<int>(gpu.size()) >= settings_.agreeing_calls && samples_agree(gpu, settings_.agreement)) break;
  }
  times->gpu_ms = median_of(std::move(gpu));
  times->host_ms = median_of(std::move(host));
  ++timings_run_;
  Statistics::instance().count_search(key_.op, SearchCount::kTimedInFull);
  return Status::success();
}

}  // namespace ucudnn::runtime
