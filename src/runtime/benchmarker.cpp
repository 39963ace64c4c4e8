#include "runtime/benchmarker.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <limits>

#include "core/logging.h"
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

Status Benchmarker::create(cudnnHandle_t handle, const ConvKey& key, BenchmarkSettings settings,
                           std::unique_ptr<Benchmarker>* out) {
  std::unique_ptr<Benchmarker> b(new Benchmarker());
  b->handle_ = handle;
  b->key_ = key;
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
  UCUDNN_TRY(make_filter_descriptor(key.w, &b->filter_));

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
  UCUDNN_TRY(create_event(cudaEventDefault, &b->start_));
  UCUDNN_TRY(create_event(cudaEventDefault, &b->stop_));
  UCUDNN_TRY(b->make_interloper());
  *out = std::move(b);
  return Status::success();
}

Status Benchmarker::time_candidate(const ConvDescriptors& d, int algo, double* median_ms) {
  static const float kOne = 1.0f, kZero = 0.0f;
  static const double kOneDouble = 1.0, kZeroDouble = 0.0;
  const bool is_double = key_.x.data_type == CUDNN_DATA_DOUBLE;
  const void* alpha = is_double ? static_cast<const void*>(&kOneDouble) : &kOne;
  const void* beta = is_double ? static_cast<const void*>(&kZeroDouble) : &kZero;
  const ConvBuffers buffers{x_.get(), w_.get(), y_.get()};
  cudaStream_t stream = nullptr;
  UCUDNN_CHECK_CUDNN(cudnnGetStream(handle_, &stream));

  for (int i = 0; i < settings_.warmup_calls; ++i) {
    UCUDNN_TRY(convolve(handle_, key_.op, d, algo, alpha, buffers, workspace_.get(), workspace_bytes_, beta));
  }
  // What a call costs in a program's sequence of calls: the GPU's time or the host's, whichever is
  // longer. cuDNN's legacy API spends 15-250 us of host time per call on the H100 machines, often
  // more than the GPU needs, and more when the previous call was another convolution's (as in a
  // program) than when it repeats the same call. So each sample closes a gate on the stream,
  // calls an unrelated small convolution, then times the host's one call of the candidate and,
  // with events, the GPU's run of it once the gate opens (no launch gap: the work is queued).
  auto time_one = [&](float* ms) -> Status {
    StreamGate gate;
    gate.close(stream);
    UCUDNN_TRY(call_interloper());
    UCUDNN_CHECK_CUDA(cudaEventRecord(start_.get(), stream));
    const auto calling = std::chrono::steady_clock::now();
    UCUDNN_TRY(convolve(handle_, key_.op, d, algo, alpha, buffers, workspace_.get(), workspace_bytes_, beta));
    const double host_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - calling).count();
    UCUDNN_CHECK_CUDA(cudaEventRecord(stop_.get(), stream));
    gate.open();
    UCUDNN_CHECK_CUDA(cudaEventSynchronize(stop_.get()));
    float gpu_ms = 0;
    UCUDNN_CHECK_CUDA(cudaEventElapsedTime(&gpu_ms, start_.get(), stop_.get()));
    if (gate.timed_out()) UCUDNN_LOG_DEBUG("a timing sample waited for the host: it includes launch overhead");
    *ms = static_cast<float>(std::max<double>(gpu_ms, host_ms));
    return Status::success();
  };
  std::vector<float> times;
  for (int i = 0; i < settings_.timed_calls; ++i) {
    float ms = 0;
    UCUDNN_TRY(time_one(&ms));
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  const std::size_t n = times.size();
  *median_ms = n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
  ++timings_run_;
  return Status::success();
}

Status Benchmarker::measure(int micro_batch, const std::vector<Measurement>& known,
                            std::vector<Measurement>* measured) {
  measured->clear();
  const ConvKey micro = key_.with_batch(micro_batch);
  TensorDescriptor x_desc, y_desc;
  ConvolutionDescriptor caller_conv;
  UCUDNN_TRY(make_tensor_descriptor(micro.x, &x_desc));
  UCUDNN_TRY(make_tensor_descriptor(micro.y, &y_desc));
  UCUDNN_TRY(make_convolution_descriptor(micro.conv, micro.conv.math_type, &caller_conv));
  ConvDescriptors d{x_desc.get(), filter_.get(), caller_conv.get(), y_desc.get()};

  std::vector<AlgoPerf> candidates;
  const ConvBuffers buffers{x_.get(), w_.get(), y_.get()};
  UCUDNN_TRY(
      find_algorithms_ex(handle_, key_.op, d, buffers, workspace_.get(), workspace_bytes_, &candidates));

  for (const AlgoPerf& c : candidates) {
    if (c.status != CUDNN_STATUS_SUCCESS || c.memory > workspace_bytes_) continue;
    // A caller that forbids tensor-core rounding keeps FMA math in every micro-kernel.
    const int math = micro.conv.math_type == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : c.math_type;
    const bool already = std::any_of(known.begin(), known.end(), [&](const Measurement& m) {
      return m.algo == c.algo && m.math_type == math;
    });
    const bool duplicate = std::any_of(measured->begin(), measured->end(), [&](const Measurement& m) {
      return m.algo == c.algo && m.math_type == math;
    });
    if (already || duplicate) continue;
    if (!conv_by_math_.count(math)) {
      UCUDNN_TRY(make_convolution_descriptor(micro.conv, math, &conv_by_math_[math]));
    }
    d.conv = conv_by_math_.at(math).get();
    double median_ms = 0;
    Status timed = time_candidate(d, c.algo, &median_ms);
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
    m.time_ms = median_ms;
    m.workspace_bytes = std::max(workspace, c.memory);
    m.deterministic = c.determinism == CUDNN_DETERMINISTIC;
    if (m.workspace_bytes <= workspace_bytes_) measured->push_back(m);
    d.conv = caller_conv.get();
  }
  return Status::success();
}

// 1x1 forward convolution of one 8x8x8 FP32 sample: cheap on the GPU, and a different
// convolution from any network's, so the timed call is never a repeat of the previous one.
Status Benchmarker::make_interloper() {
  const TensorLayout x{CUDNN_DATA_FLOAT, {1, 8, 8, 8}, {512, 64, 8, 1}};
  const FilterLayout w{CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, {8, 8, 1, 1}};
  ConvParams params;
  params.mode = CUDNN_CROSS_CORRELATION;
  params.compute_type = CUDNN_DATA_FLOAT;
  params.pads = {0, 0};
  params.strides = {1, 1};
  params.dilations = {1, 1};
  Interloper& i = interloper_;
  UCUDNN_TRY(make_tensor_descriptor(x, &i.x));
  UCUDNN_TRY(make_tensor_descriptor(x, &i.y));
  UCUDNN_TRY(make_filter_descriptor(w, &i.w));
  UCUDNN_TRY(make_convolution_descriptor(params, CUDNN_DEFAULT_MATH, &i.conv));
  UCUDNN_TRY(i.x_mem.allocate(512 * sizeof(float)));
  UCUDNN_TRY(i.y_mem.allocate(512 * sizeof(float)));
  UCUDNN_TRY(i.w_mem.allocate(64 * sizeof(float)));
  UCUDNN_TRY(fill_random(i.x_mem, CUDNN_DATA_FLOAT, 512, 4));
  UCUDNN_TRY(fill_random(i.w_mem, CUDNN_DATA_FLOAT, 64, 5));
  return call_interloper();  // once, so that its own first-call costs are paid here
}

Status Benchmarker::call_interloper() {
  static const float kOne = 1.0f, kZero = 0.0f;
  const Interloper& i = interloper_;
  return convolve(handle_, ConvOp::kForward, {i.x.get(), i.w.get(), i.conv.get(), i.y.get()},
                  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, &kOne, {i.x_mem.get(), i.w_mem.get(), i.y_mem.get()},
                  nullptr, 0, &kZero);
}

}  // namespace ucudnn
