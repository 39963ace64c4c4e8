#include "runtime/gpu_measurement_source.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#include "core/internal_call.h"
#include "core/logging.h"
#include "core/statistics.h"
#include "runtime/cudnn_shim.h"
#include "runtime/descriptors.h"
#include "runtime/device_buffer.h"
#include "runtime/device_info.h"
#include "runtime/padded_input_copies.h"

namespace ucudnn::runtime {
namespace {

// cuDNN validates the descriptors first, so invalid arguments fail with cuDNN's own status.
Status validate_with_cudnn(cudnnHandle_t handle, const ConvKey& key) {
  const SearchPhaseClock clock(key.op, SearchPhase::kHeuristics);
  TensorDescriptor x, y;
  FilterDescriptor w;
  ConvolutionDescriptor conv;
  UCUDNN_TRY(make_tensor_descriptor(key.x, &x));
  UCUDNN_TRY(make_tensor_descriptor(key.y, &y));
  UCUDNN_TRY(make_filter_descriptor(key.w, &w));
  UCUDNN_TRY(make_convolution_descriptor(key.conv, key.conv.math_type, &conv));
  std::vector<AlgoPerf> heuristics;
  return get_algorithms(handle, key.op, {x.get(), w.get(), conv.get(), y.get()}, &heuristics);
}

// Deals sizes out largest first, so that each device gets a similar share of the work.
std::vector<std::vector<int>> deal(std::vector<int> sizes, std::size_t hands) {
  std::sort(sizes.rbegin(), sizes.rend());
  std::vector<std::vector<int>> shares(hands);
  for (std::size_t i = 0; i < sizes.size(); ++i) shares[i % hands].push_back(sizes[i]);
  return shares;
}

}  // namespace

Status GpuMeasurementSource::identify(int device, DeviceIdentity* identity) {
  return device_identity(device, identity);
}

Status GpuMeasurementSource::measure(cudnnHandle_t handle, const ConvKey& key, const MeasureRequest& request,
                                     std::map<int, MeasuredRows>* out) {
  const auto started = std::chrono::steady_clock::now();
  const std::vector<int> devices = benchmark_devices(key.device);
  if (devices.size() <= 1 || request.sizes.size() <= 1) {
    std::lock_guard<std::mutex> lock(kept_mutex_);
    const cudnnHandle_t benchmarking = benchmarking_handle(handle, key.device);
    const bool reusable = kept_ && kept_->key() == key && kept_->handle() == benchmarking &&
                          kept_->mode() == request.mode;
    if (!reusable) {
      UCUDNN_TRY(validate_with_cudnn(handle, key));  // once per kernel: the kept benchmarker's was
      kept_.reset();  // its buffers first: the device may not hold both
      UCUDNN_TRY(Benchmarker::create(benchmarking, key, settings_of(request.mode), &kept_));
    }
    UCUDNN_TRY(measure_with(*kept_, request, request.sizes, out));
  } else {
    UCUDNN_TRY(validate_with_cudnn(handle, key));
    measure_spread(devices, key, request, out);
  }
  UCUDNN_LOG_INFO("benchmarked " << to_string(request.kind) << " candidates at " << request.sizes.size()
                                 << " micro-batch sizes of " << key.to_string() << " on " << devices.size()
                                 << " GPU(s) in "
                                 << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()
                                 << " s");
  return Status::success();
}

Status GpuMeasurementSource::time_padded_copies(cudnnHandle_t handle, const ConvKey& key, int size, double* ms) {
  const cudnnHandle_t timing = benchmarking_handle(handle, key.device);
  std::unique_ptr<PaddedInputCopies> copies;
  UCUDNN_TRY(PaddedInputCopies::make(key, {size}, &copies));
  const ConvKey micro = key.with_batch(size);
  std::size_t filter_elements = 1;
  for (int d : key.w.dims) filter_elements *= static_cast<std::size_t>(d);
  DeviceBuffer x, w, buffers;
  UCUDNN_TRY(x.allocate(extent_elements(micro.x) * element_size(key.x.data_type)));
  UCUDNN_TRY(w.allocate(filter_elements * element_size(key.w.data_type)));
  UCUDNN_TRY(buffers.allocate(copies->workspace_bytes()));
  cudaStream_t stream = nullptr;
  UCUDNN_CHECK_CUDNN(cudnnGetStream(timing, &stream));
  UCUDNN_CHECK_CUDA(cudaMemsetAsync(x.get(), 0, x.size(), stream));  // the copy's time does not depend on values
  UCUDNN_CHECK_CUDA(cudaMemsetAsync(w.get(), 0, w.size(), stream));
  auto one_call = [&]() -> Status {
    UCUDNN_TRY(copies->start(timing, w.get(), buffers.get()));
    UCUDNN_TRY(copies->copy_input(timing, size, x.get(), buffers.get()));
    if (key.op == ConvOp::kBackwardFilter) UCUDNN_TRY(copies->copy_filter_gradient_out(timing, buffers.get(), w.get()));
    return Status::success();
  };
  CudaEvent start, stop;
  UCUDNN_TRY(create_event(cudaEventDefault, &start));
  UCUDNN_TRY(create_event(cudaEventDefault, &stop));
  UCUDNN_TRY(one_call());  // warm-up
  constexpr int kTimings = 5;
  std::vector<float> times;
  for (int i = 0; i < kTimings; ++i) {
    UCUDNN_CHECK_CUDA(cudaEventRecord(start.get(), stream));
    UCUDNN_TRY(one_call());
    UCUDNN_CHECK_CUDA(cudaEventRecord(stop.get(), stream));
    UCUDNN_CHECK_CUDA(cudaEventSynchronize(stop.get()));
    float elapsed = 0;
    UCUDNN_CHECK_CUDA(cudaEventElapsedTime(&elapsed, start.get(), stop.get()));
    times.push_back(elapsed);
  }
  std::sort(times.begin(), times.end());
  *ms = times[times.size() / 2];
  return Status::success();
}

void GpuMeasurementSource::release() {
  std::lock_guard<std::mutex> lock(kept_mutex_);
  kept_.reset();
}

Status GpuMeasurementSource::measure_with(Benchmarker& benchmarker, const MeasureRequest& request,
                                          const std::vector<int>& sizes, std::map<int, MeasuredRows>* out) {
  const int timings_before = benchmarker.timings_run();
  static const std::vector<Measurement> kNone;
  auto rows_at = [](const std::map<int, std::vector<Measurement>>& by_size, int size) -> const std::vector<Measurement>& {
    const auto it = by_size.find(size);
    return it != by_size.end() ? it->second : kNone;
  };
  for (int size : sizes) {
    MeasuredRows result;
    // Rows measured with less workspace stay valid; other kinds' rows are what to beat.
    SizeRequest at;
    at.micro_batch = size;
    at.measured_before = &rows_at(request.measured_before, size);
    at.other_kinds_rows = &rows_at(request.other_kinds_rows, size);
    at.larger_size_rows = &rows_at(request.larger_size_rows_by_size, size);
    at.workspace_limit = request.workspace_limit;
    Status status = benchmarker.measure(request.kind, at, &result.rows);
    if (!status.ok()) {
      UCUDNN_LOG_DEBUG("micro-batch " << size << " of " << benchmarker.key().to_string()
                                      << " not measured: " << status.message());
      continue;
    }
    Statistics::instance().count_search(benchmarker.key().op, SearchCount::kSizesMeasured);
    result.measured_up_to = benchmarker.measured_up_to(request.kind);
    (*out)[size] = std::move(result);
  }
  timings_run_ += benchmarker.timings_run() - timings_before;
  return Status::success();
}

void GpuMeasurementSource::measure_spread(const std::vector<int>& devices, const ConvKey& key,
                                          const MeasureRequest& request, std::map<int, MeasuredRows>* out) {
  const std::vector<std::vector<int>> shares = deal(request.sizes, devices.size());
  std::vector<std::map<int, MeasuredRows>> results(devices.size());
  std::vector<Status> statuses(devices.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (shares[i].empty()) continue;
    threads.emplace_back([&, i] {
      const InternalCallScope inside;  // this thread's cuDNN calls are ucudnn's own
      statuses[i] = [&]() -> Status {
        UCUDNN_CHECK_CUDA(cudaSetDevice(devices[i]));  // this thread's current device
        cudnnHandle_t device_cudnn = nullptr;
        UCUDNN_TRY(device_handle(devices[i], &device_cudnn));
        std::unique_ptr<Benchmarker> benchmarker;
        UCUDNN_TRY(Benchmarker::create(device_cudnn, key, settings_of(request.mode), &benchmarker));
        return measure_with(*benchmarker, request, shares[i], &results[i]);
      }();
    });
  }
  for (auto& t : threads) t.join();
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (!statuses[i].ok()) {
      UCUDNN_LOG_WARN("benchmarking on GPU " << devices[i] << " failed: " << statuses[i].message());
    }
    out->insert(results[i].begin(), results[i].end());
  }
}

std::vector<std::string> GpuMeasurementSource::measuring_gpus(int device) {
  std::vector<std::string> gpus;
  for (int d : benchmark_devices(device)) {
    auto uuid = device_uuid(d);
    if (!uuid) return {"unknown GPU"};  // never empty: an unknown GPU may be anyone's
    gpus.push_back(*uuid);
  }
  return gpus;
}

std::vector<int> GpuMeasurementSource::benchmark_devices(int handle_device) {
  if (benchmark_devices_.empty()) return {handle_device};
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return {handle_device};
  auto parsed = parse_benchmark_devices(benchmark_devices_, count);
  if (!parsed) {
    warn_once("benchmark devices", parsed.message() + "; benchmarking on the handle's GPU only");
    return {handle_device};
  }
  // Rows measured on one GPU stand for all: every GPU must be of the handle's kind.
  DeviceIdentity reference;
  if (!device_identity(handle_device, &reference).ok()) return {handle_device};
  for (int d : parsed.value()) {
    DeviceIdentity other;
    if (!device_identity(d, &other).ok() || other != reference) {
      warn_once("benchmark devices differ",
                "UCUDNN_BENCHMARK_DEVICES refused: GPU " + std::to_string(d) + " (" + other.to_string() +
                    ") differs from GPU " + std::to_string(handle_device) + " (" + reference.to_string() +
                    "); benchmarking on the handle's GPU only");
      return {handle_device};
    }
  }
  return parsed.value();
}

cudnnHandle_t GpuMeasurementSource::benchmarking_handle(cudnnHandle_t caller, int device) {
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess || current != device) {
    (void)cudaGetLastError();
    return caller;  // a handle of ours would bind to another device
  }
  cudnnHandle_t own = nullptr;
  return device_handle(device, &own).ok() ? own : caller;
}

Status GpuMeasurementSource::device_handle(int device, cudnnHandle_t* handle) {
  std::lock_guard<std::mutex> lock(devices_mutex_);
  auto it = device_handles_.find(device);
  if (it == device_handles_.end()) {
    DeviceHandle made;  // both bind to the current device, set by the caller
    cudaStream_t stream = nullptr;
    UCUDNN_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    made.stream.reset(stream);
    cudnnHandle_t created = nullptr;
    UCUDNN_CHECK_CUDNN(cudnnCreate(&created));
    made.cudnn.reset(created);
    UCUDNN_CHECK_CUDNN(cudnnSetStream(created, stream));
    it = device_handles_.emplace(device, std::move(made)).first;
  }
  *handle = it->second.cudnn.get();
  return Status::success();
}

}  // namespace ucudnn::runtime
