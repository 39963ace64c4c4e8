// The GPU benchmark's timing with CUDA events: medians of queued kernels and of live sequences.
#include "benchmark_timing.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

#include "runtime/stream_gate.h"

namespace bench {
namespace {

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5f * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// Times `launch` with events: `warmup` calls, then the median of `iterations` timed calls, each
// launched live, or queued behind a closed gate and costing max(host time, GPU time).
float time_median(const std::function<void()>& launch, int warmup, int iterations, cudaStream_t stream,
                  bool queued) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  for (int i = 0; i < warmup; ++i) launch();
  std::vector<float> times;
  for (int i = 0; i < iterations; ++i) {
    ucudnn::runtime::StreamGate gate;
    if (queued && !gate.close(stream)) fail("cannot hold the stream (cudaLaunchHostFunc)");
    check(cudaEventRecord(start, stream), "record");
    const auto host_start = std::chrono::steady_clock::now();
    launch();
    const float host_ms =
        std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - host_start).count();
    check(cudaEventRecord(stop, stream), "record");
    gate.open();
    check(cudaEventSynchronize(stop), "sync");
    if (gate.timed_out()) {
      std::fprintf(stderr, "ucudnn_conv_benchmark: warning: a queued call waited for the GPU; that sample "
                           "includes the host's time\n");
    }
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    times.push_back(queued ? std::max(ms, host_ms) : ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return median(times);
}

}  // namespace

void time_kernels(Side& side, const Options& o) {
  for (Kernel& k : side.kernels) k.time_ms = time_median(k.launch, o.warmup, o.iterations, nullptr, true);
}

void time_sequences(std::vector<Side>& sides, const Options& o, ProcessBudget& budget) {
  std::vector<std::vector<float>> times(sides.size());
  for (int i = 0; i < o.iterations; ++i) {
    for (size_t j = 0; j < sides.size(); ++j) {
      const size_t s = (i + j) % sides.size();
      Side& side = sides[s];
      budget.set_for(side);
      const auto sequence = [&side]() {
        for (Kernel& k : side.kernels) k.launch();
      };
      times[s].push_back(time_median(sequence, i == 0 ? 1 : 0, 1, nullptr, false));
    }
  }
  for (size_t s = 0; s < sides.size(); ++s) sides[s].sequence_ms = median(times[s]);
}

}  // namespace bench
