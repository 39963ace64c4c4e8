#include "runtime/benchmarker.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <limits>

#include "core/logging.h"
#include "runtime/backend_graph.h"
#include "runtime/cudnn_shim.h"
#include "runtime/random_fill.h"
#include "runtime/stream_gate.h"

namespace ucudnn {
namespace {

std::size_t filter_elements(const FilterLayout& w) {
  std::size_t n = 1;
  for (int d : w.dims) n *= static_cast<std::size_t>(d);
  return n;
}

}  // namespace

Status Benchmarker::create(cudnnHandle_t handle, const ConvKey& key, CandidateKind kind, BenchmarkSettings settings,
                           std::unique_ptr<Benchmarker>* out) {
  std::unique_ptr<Benchmarker> b(new Benchmarker());
  b->handle_ = handle;
  b->key_ = key;
  b->kind_ = kind;
  b->settings_ = settings;
  const std::size_t x_elements = extent_elements(key.x);
  const std::size_t y_elements = extent_elements(key.y);
  const std::size_t w_elements = filter_elements(key.w);
  UCUDNN_TRY(b->x_.allocate(x_elements * element_size(key.x.data_type)));
  UCUDNN_TRY(b->y_.allocate(y_elements * element_size(key.y.data_type)));
  UCUDNN_TRY(b->w_.allocate(w_elements * element_size(key.w.data_type)));
  // Every buffer gets random values: timings on zeros can flatter a kernel.
  UCUDNN_TRY(fill_random(b->x_, key.x.data_type, x_elements, 1));
  UCUDNN_TRY(fill_random(b->y_, key.y.data_type, y_elements, 2));
  UCUDNN_TRY(fill_random(b->w_, key.w.data_type, w_elements, 3));
  // The fills' device-to-device copies run on the legacy default stream, which a non-blocking
  // benchmarking stream does not wait for.
  UCUDNN_CHECK_CUDA(cudaStreamSynchronize(nullptr));
  UCUDNN_TRY(make_filter_descriptor(key.w, &b->filter_));
  UCUDNN_TRY(create_event(cudaEventDefault, &b->start_));
  UCUDNN_TRY(create_event(cudaEventDefault, &b->stop_));
  if (kind == CandidateKind::kEngine) {
    // Engine plans say their workspace only once built: the buffer grows as they are measured.
    b->measured_up_to_ = std::numeric_limits<std::size_t>::max();
    *out = std::move(b);
    return Status::success();
  }

  // Rows are measured unfiltered: the workspace is what the hungriest algorithm needs on the whole
  // batch (so the rows serve any limit), or what the device can spare, keeping a margin for cuDNN.
  std::size_t needed = 0;
  {
    TensorDescriptor x, y;
    ConvolutionDescriptor conv;
    UCUDNN_TRY(make_tensor_descriptor(key.x, &x));
    UCUDNN_TRY(make_tensor_descriptor(key.y, &y));
    UCUDNN_TRY(make_convolution_descriptor(key.conv, key.conv.math_type, &conv));
    for (int algo = 0; algo < algo_count(key.op); ++algo) {
      std::size_t bytes = 0;
      if (workspace_size(handle, key.op, {x.get(), b->filter_.get(), conv.get(), y.get()}, algo, &bytes).ok()) {
        needed = std::max(needed, bytes);
      }
    }
  }
  std::size_t free_bytes = 0, total_bytes = 0;
  UCUDNN_CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t margin = std::size_t{256} << 20;
  std::size_t bytes = std::min(needed, free_bytes > margin ? free_bytes - margin : 0);
  while (bytes > 0 && !b->workspace_.allocate(bytes).ok()) bytes /= 2;
  b->workspace_bytes_ = bytes;
  b->measured_up_to_ = bytes >= needed ? std::numeric_limits<std::size_t>::max() : bytes;
  if (bytes < needed) {
    UCUDNN_LOG_INFO("benchmarking " << key.to_string() << " with " << bytes << " bytes of workspace, not the "
                                    << needed << " its hungriest algorithm needs: the device has no more free");
  }
  *out = std::move(b);
  return Status::success();
}

bool Benchmarker::grow_workspace(std::size_t bytes) {
  if (bytes <= workspace_bytes_) return true;
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return false;
  const std::size_t margin = std::size_t{256} << 20;
  if (free_bytes + workspace_bytes_ < bytes + margin) return false;
  if (!workspace_.allocate(bytes).ok()) {  // frees the old buffer first
    workspace_bytes_ = workspace_.allocate(workspace_bytes_).ok() ? workspace_bytes_ : 0;
    return false;
  }
  workspace_bytes_ = bytes;
  return true;
}

namespace {

double median_of(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  return n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

}  // namespace

Status Benchmarker::time_candidate(const std::function<Status()>& enqueue, CallTimes* times) {
  cudaStream_t stream = nullptr;
  UCUDNN_CHECK_CUDNN(cudnnGetStream(handle_, &stream));

  for (int i = 0; i < settings_.warmup_calls; ++i) UCUDNN_TRY(enqueue());
  // A sample queues `calls` calls behind a closed gate and times them twice: on the host, what
  // issuing one call costs (the gate keeps the GPU from pushing back); on the GPU, with events,
  // what the calls cost run back to back, as a replayed graph runs them
  // (runtime/graph_replay.h). Both are kept: a replayed call costs the GPU's time only, a call
  // issued by the host costs the longer of the two (Measurement::cost_ms).
  auto time_calls = [&](int calls, double* gpu_ms, double* host_ms) -> Status {
    StreamGate gate;
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
  double single = 0, single_host = 0;
  UCUDNN_TRY(time_calls(1, &single, &single_host));
  const int calls = std::clamp(static_cast<int>(settings_.sample_ms / std::max(single, 1e-3)), 1,
                               settings_.max_calls_per_sample);
  std::vector<double> gpu, host;
  for (int i = 0; i < settings_.timed_calls; ++i) {
    double gpu_ms = 0, host_ms = 0;
    UCUDNN_TRY(time_calls(calls, &gpu_ms, &host_ms));
    gpu.push_back(gpu_ms);
    host.push_back(host_ms);
  }
  times->gpu_ms = median_of(std::move(gpu));
  times->host_ms = median_of(std::move(host));
  ++timings_run_;
  return Status::success();
}

Status Benchmarker::measure(int micro_batch, const std::vector<Measurement>& known,
                            std::vector<Measurement>* measured) {
  measured->clear();
  return kind_ == CandidateKind::kEngine ? measure_engines(micro_batch, known, measured)
                                         : measure_legacy(micro_batch, known, measured);
}

Status Benchmarker::measure_engines(int micro_batch, const std::vector<Measurement>& known,
                                    std::vector<Measurement>* measured) {
  const ConvKey micro = key_.with_batch(micro_batch);
  std::vector<EngineOffer> offers;
  UCUDNN_TRY(offer_engines(micro, &offers));
  const ConvBuffers buffers{x_.get(), w_.get(), y_.get()};
  for (const EngineOffer& offer : offers) {
    const bool already = std::any_of(known.begin(), known.end(), [&](const Measurement& m) { return m.engine == offer.id; });
    if (already) continue;
    std::unique_ptr<EnginePlan> plan;
    const Status built = EnginePlan::build(micro, offer.id, 1.0, 0.0, &plan);
    if (!built.ok()) {
      UCUDNN_LOG_DEBUG("skipping " << offer.id << " at micro-batch " << micro_batch << ": " << built.message());
      continue;
    }
    // Backward filter's later micro-batches accumulate (beta = 1), and some engines need more
    // workspace for that: the row records what the engine needs in either role. An engine that
    // cannot accumulate is left out: the planner could not tell where it may run.
    std::size_t workspace_needed = plan->workspace_bytes();
    if (micro.op == ConvOp::kBackwardFilter) {
      std::unique_ptr<EnginePlan> accumulating;
      const Status accumulates = EnginePlan::build(micro, offer.id, 1.0, 1.0, &accumulating);
      if (!accumulates.ok()) {
        UCUDNN_LOG_DEBUG("skipping " << offer.id << " at micro-batch " << micro_batch
                                     << ": it cannot accumulate: " << accumulates.message());
        continue;
      }
      workspace_needed = std::max(workspace_needed, accumulating->workspace_bytes());
    }
    if (!grow_workspace(workspace_needed)) {
      // The rows are complete only up to the workspace that could be had.
      measured_up_to_ = std::min(measured_up_to_, workspace_bytes_);
      continue;
    }
    CallTimes times;
    const Status timed =
        time_candidate([&] { return plan->execute(handle_, buffers, workspace_.get(), workspace_bytes_); }, &times);
    if (!timed.ok()) {
      UCUDNN_LOG_DEBUG("skipping " << offer.id << " at micro-batch " << micro_batch << ": " << timed.message());
      continue;
    }
    Measurement m;
    m.micro_batch = micro_batch;
    m.algo = -1;
    m.math_type = micro.conv.math_type;
    m.time_ms = times.gpu_ms;
    m.host_ms = times.host_ms;
    m.workspace_bytes = workspace_needed;
    m.deterministic = offer.deterministic;
    m.engine = offer.id;
    measured->push_back(std::move(m));
  }
  return Status::success();
}

Status Benchmarker::measure_legacy(int micro_batch, const std::vector<Measurement>& known,
                                   std::vector<Measurement>* measured) {
  const ConvKey micro = key_.with_batch(micro_batch);
  TensorDescriptor x_desc, y_desc;
  ConvolutionDescriptor caller_conv;
  UCUDNN_TRY(make_tensor_descriptor(micro.x, &x_desc));
  UCUDNN_TRY(make_tensor_descriptor(micro.y, &y_desc));
  UCUDNN_TRY(make_convolution_descriptor(micro.conv, micro.conv.math_type, &caller_conv));
  ConvDescriptors d{x_desc.get(), filter_.get(), caller_conv.get(), y_desc.get()};

  std::vector<AlgoPerf> candidates;
  const ConvBuffers buffers{x_.get(), w_.get(), y_.get()};
  static const float kOne = 1.0f, kZero = 0.0f;
  static const double kOneDouble = 1.0, kZeroDouble = 0.0;
  const bool is_double = key_.x.data_type == CUDNN_DATA_DOUBLE;
  const void* alpha = is_double ? static_cast<const void*>(&kOneDouble) : &kOne;
  const void* beta = is_double ? static_cast<const void*>(&kZeroDouble) : &kZero;
  UCUDNN_TRY(
      find_algorithms_ex(handle_, key_.op, d, buffers, workspace_.get(), workspace_bytes_, &candidates));

  for (const AlgoPerf& c : candidates) {
    if (c.status != CUDNN_STATUS_SUCCESS || c.memory > workspace_bytes_) continue;
    // A caller that forbids tensor-core rounding keeps FMA math in every micro-kernel.
    const int math = micro.conv.math_type == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : c.math_type;
    const bool already = std::any_of(known.begin(), known.end(), [&](const Measurement& m) {
      return !m.is_engine() && m.algo == c.algo && m.math_type == math;
    });
    const bool duplicate = std::any_of(measured->begin(), measured->end(), [&](const Measurement& m) {
      return m.algo == c.algo && m.math_type == math;
    });
    if (already || duplicate) continue;
    if (!conv_by_math_.count(math)) {
      UCUDNN_TRY(make_convolution_descriptor(micro.conv, math, &conv_by_math_[math]));
    }
    d.conv = conv_by_math_.at(math).get();
    CallTimes times;
    Status timed = time_candidate(
        [&] { return convolve(handle_, key_.op, d, c.algo, alpha, buffers, workspace_.get(), workspace_bytes_, beta); },
        &times);
    if (!timed.ok()) {
      UCUDNN_LOG_DEBUG("skipping algo " << c.algo << " at micro-batch " << micro_batch << ": " << timed.message());
      continue;
    }
    std::size_t workspace = 0;
    if (!workspace_size(handle_, key_.op, d, c.algo, &workspace).ok()) workspace = c.memory;
    Measurement m;
    m.micro_batch = micro_batch;
    m.algo = c.algo;
    m.math_type = math;
    m.time_ms = times.gpu_ms;
    m.host_ms = times.host_ms;
    m.workspace_bytes = std::max(workspace, c.memory);
    m.deterministic = c.determinism == CUDNN_DETERMINISTIC;
    if (m.workspace_bytes <= workspace_bytes_) measured->push_back(m);
    d.conv = caller_conv.get();
  }
  return Status::success();
}

}  // namespace ucudnn
