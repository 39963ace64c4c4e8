#pragma once
// Measurement on the GPU: the Benchmarker on the handle's device, or spread over the devices
// UCUDNN_BENCHMARK_DEVICES names (all of the handle's kind), each with a cuDNN handle of its own.
// On one device the Benchmarker of the last convolution is kept until release() (its random
// buffers serve every kind and every size the plan builder asks for in turn). Thread-safe.

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/knob_sweep.h"
#include "runtime/benchmarker.h"
#include "runtime/measurement_source.h"
#include "runtime/owned.h"

namespace ucudnn::runtime {

class GpuMeasurementSource : public MeasurementSource {
 public:
  /// `benchmark_devices`: UCUDNN_BENCHMARK_DEVICES, its syntax checked ("all" or "0,2,3"; empty:
  /// the handle's device only); the device numbers are checked here, at each measurement.
  /// `engine_knobs`: UCUDNN_ENGINE_KNOBS, which engine configurations are measured.
  explicit GpuMeasurementSource(std::string benchmark_devices, KnobSearch engine_knobs = KnobSearch::kHeuristics)
      : benchmark_devices_(std::move(benchmark_devices)), engine_knobs_(engine_knobs) {}

  Status identify(int device, DeviceIdentity* identity) override;
  std::size_t sizes_at_once(int device) override { return benchmark_devices(device).size(); }
  std::vector<std::string> measuring_gpus(int device) override;
  /// Validates the descriptors with cuDNN first (its heuristics; once per kernel), then measures.
  Status measure(cudnnHandle_t handle, const ConvKey& key, const MeasureRequest& request,
                 std::map<int, MeasuredRows>* out) override;
  void release() override;
  Status time_padded_copies(cudnnHandle_t handle, const ConvKey& key, int size, double* ms) override;
  long long timings_run() const override { return timings_run_.load(); }

 private:
  /// Measures the request's sizes with `benchmarker`.
  Status measure_with(Benchmarker& benchmarker, const MeasureRequest& request, const std::vector<int>& sizes,
                      std::map<int, MeasuredRows>* out);
  /// Deals the sizes out over `devices` and measures them in parallel, one thread per device.
  void measure_spread(const std::vector<int>& devices, const ConvKey& key, const MeasureRequest& request,
                      std::map<int, MeasuredRows>* out);
  /// The devices to benchmark on for a handle's device (one entry: no parallel benchmarking).
  std::vector<int> benchmark_devices(int handle_device);
  /// The handle to benchmark with: one of this source's on the device, not the caller's. Thousands
  /// of benchmark calls on the caller's handle are suspected of slowing the caller's own later
  /// calls; the caller's handle only where the current device is not `device` (or no handle can be made).
  cudnnHandle_t benchmarking_handle(cudnnHandle_t caller, int device);
  /// A cuDNN handle of this source's on `device` (call with the device current).
  Status device_handle(int device, cudnnHandle_t* handle);
  /// How a request's search mode times candidates, with this source's engine configurations.
  BenchmarkSettings settings_of(SearchMode mode) const {
    BenchmarkSettings settings = BenchmarkSettings::of(mode);
    settings.engine_knobs = engine_knobs_;
    return settings;
  }

  std::atomic<long long> timings_run_{0};
  std::mutex devices_mutex_;
  struct DeviceHandle {
    CudaStream stream;  ///< non-blocking: benchmarking never waits on, or for, other streams' work
    CudnnHandle cudnn;
  };
  std::map<int, DeviceHandle> device_handles_;

  std::mutex kept_mutex_;  ///< held while the kept benchmarker measures
  std::unique_ptr<Benchmarker> kept_;
  const std::string benchmark_devices_;  ///< empty: the handle's device only
  const KnobSearch engine_knobs_;
};

}  // namespace ucudnn::runtime
