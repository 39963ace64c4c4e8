// How cuDNN's legacy convolution calls cost host time when calls of different convolutions
// alternate: on one handle, on a handle each, and with the data pointers moving between calls (as
// micro-batches do). Plain cuDNN only; the answer decides how ucudnn issues its calls.
//
//   ucudnn_legacy_plan_cache [--data-type half|float] [--layout NHWC|NCHW] [--calls N]
//
// Prints, per op and scenario, the host microseconds per call (median of 7 rounds, each enqueueing
// N calls while the stream is held) and the GPU microseconds per call (CUDA events over the round).

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench_support.h"
#include "runtime/cudnn_shim.h"
#include "runtime/stream_gate.h"

namespace {

using bench::check;
using bench::DeviceMemory;

struct Shape {
  const char* name;
  int n, c, h, w, k, r, pad, stride;
};

// ResNet-50 convolutions of batch 64 whose kernels run 50-200 us on an H100; A and B are the
// first two.
const Shape kShapes[] = {{"layer1.conv2", 64, 64, 56, 56, 64, 3, 1, 1},     {"layer2.conv2", 64, 128, 28, 28, 128, 3, 1, 1},
                         {"layer3.conv2", 64, 256, 14, 14, 256, 3, 1, 1},   {"layer4.conv2", 64, 512, 7, 7, 512, 3, 1, 1},
                         {"layer1.conv3", 64, 64, 56, 56, 256, 1, 0, 1},    {"layer2.conv1", 64, 256, 56, 56, 128, 1, 0, 1},
                         {"layer3.conv3", 64, 256, 14, 14, 1024, 1, 0, 1},  {"layer4.conv1", 64, 1024, 14, 14, 512, 1, 0, 1}};
constexpr int kShapeCount = sizeof(kShapes) / sizeof(kShapes[0]);

struct Conv {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  size_t x_bytes = 0, y_bytes = 0, w_bytes = 0;
};

Conv make_conv(const Shape& s, cudnnDataType_t type, cudnnTensorFormat_t format) {
  Conv c;
  const size_t e = type == CUDNN_DATA_FLOAT ? 4 : 2;
  const int out = (s.h + 2 * s.pad - s.r) / s.stride + 1;
  check(cudnnCreateTensorDescriptor(&c.x), "create x");
  check(cudnnCreateTensorDescriptor(&c.y), "create y");
  check(cudnnCreateFilterDescriptor(&c.w), "create w");
  check(cudnnCreateConvolutionDescriptor(&c.conv), "create conv");
  check(cudnnSetTensor4dDescriptor(c.x, format, type, s.n, s.c, s.h, s.w), "set x");
  check(cudnnSetTensor4dDescriptor(c.y, format, type, s.n, s.k, out, out), "set y");
  check(cudnnSetFilter4dDescriptor(c.w, type, format, s.k, s.c, s.r, s.r), "set w");
  check(cudnnSetConvolution2dDescriptor(c.conv, s.pad, s.pad, s.stride, s.stride, 1, 1, CUDNN_CROSS_CORRELATION,
                                        type == CUDNN_DATA_HALF ? CUDNN_DATA_FLOAT : type),
        "set conv");
  check(cudnnSetConvolutionMathType(c.conv, type == CUDNN_DATA_FLOAT ? CUDNN_DEFAULT_MATH : CUDNN_TENSOR_OP_MATH),
        "set math");
  c.x_bytes = e * s.n * s.c * s.h * s.w;
  c.y_bytes = e * s.n * s.k * out * out;
  c.w_bytes = e * s.k * s.c * s.r * s.r;
  return c;
}

using Buffers = ucudnn::runtime::ConvBuffers;

// Algorithm 1 of each op (the implicit-GEMM family ucudnn's ResNet-50 plans use), through the
// library's one dispatch of cuDNN's three convolution calls.
void call(cudnnHandle_t h, int op, const Conv& c, const Buffers& b, void* ws, size_t ws_bytes) {
  static const float kOne = 1.0f, kZero = 0.0f;
  const ucudnn::Status status = ucudnn::runtime::convolve(h, static_cast<ucudnn::ConvOp>(op), {c.x, c.w, c.conv, c.y},
                                                          1, &kOne, b, ws, ws_bytes, &kZero);
  if (!status.ok()) bench::fail(status.message());
}

struct Timing {
  double host_us, gpu_us;
};

// Runs `step(i)` `calls` times per round, 7 rounds after 2 warm-up rounds.
Timing time_rounds(cudaStream_t stream, int calls, const std::function<void(int)>& step) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  std::vector<double> host, gpu;
  for (int round = 0; round < 9; ++round) {
    check(cudaStreamSynchronize(stream), "sync");
    // The stream is held while the host queues the round: its host time is the calls' own cost,
    // not the GPU's pace.
    ucudnn::runtime::StreamGate gate;
    if (!gate.close(stream)) bench::fail("cannot hold the stream");
    check(cudaEventRecord(start, stream), "record");
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) step(i);
    const auto t1 = std::chrono::steady_clock::now();
    gate.open();
    check(cudaEventRecord(stop, stream), "record");
    check(cudaEventSynchronize(stop), "sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
    if (round < 2) continue;
    host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
    gpu.push_back(1000.0 * ms / calls);
  }
  std::sort(host.begin(), host.end());
  std::sort(gpu.begin(), gpu.end());
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return {host[host.size() / 2], gpu[gpu.size() / 2]};
}

}  // namespace

int main(int argc, char** argv) {
  bench::program_name = "ucudnn_legacy_plan_cache";
  std::string type_name = "half", layout = "NHWC";
  int calls = 100;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--data-type")) type_name = argv[i + 1];
    else if (!std::strcmp(argv[i], "--layout")) layout = argv[i + 1];
    else if (!std::strcmp(argv[i], "--calls")) calls = std::atoi(argv[i + 1]);
    else bench::fail(std::string("unknown option ") + argv[i]);
  }
  const cudnnDataType_t type = type_name == "float" ? CUDNN_DATA_FLOAT : CUDNN_DATA_HALF;
  const cudnnTensorFormat_t format = layout == "NCHW" ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;

  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  cudnnHandle_t h1, h2;
  check(cudnnCreate(&h1), "cudnnCreate");
  check(cudnnCreate(&h2), "cudnnCreate");
  check(cudnnSetStream(h1, stream), "set stream");
  check(cudnnSetStream(h2, stream), "set stream");

  std::vector<Conv> convs;
  size_t biggest = 0, biggest_w = 0;
  for (const Shape& shape : kShapes) {
    convs.push_back(make_conv(shape, type, format));
    biggest = std::max({biggest, convs.back().x_bytes, convs.back().y_bytes});
    biggest_w = std::max(biggest_w, convs.back().w_bytes);
  }
  const Conv& a = convs[0];
  const Conv& b = convs[1];
  const Conv a_again = make_conv(kShapes[0], type, format);  // same content, other descriptor objects
  std::vector<cudnnHandle_t> per_conv(kShapeCount);
  for (auto& h : per_conv) {
    check(cudnnCreate(&h), "cudnnCreate");
    check(cudnnSetStream(h, stream), "set stream");
  }
  // 0x3c00 is 1.0 in FP16 and a small positive number in FP32: finite data either way.
  DeviceMemory x1(biggest), y1(biggest), x2(biggest), y2(biggest), w1(biggest_w), w2(biggest_w);
  for (void* p : {x1.ptr, x2.ptr, y1.ptr, y2.ptr}) check(cudaMemset(p, 0x3c, biggest), "memset");
  for (void* p : {w1.ptr, w2.ptr}) check(cudaMemset(p, 0x3c, biggest_w), "memset");
  const size_t ws_bytes = size_t{64} << 20;
  DeviceMemory ws(ws_bytes), ws2(ws_bytes);
  const Buffers one{x1.ptr, w1.ptr, y1.ptr}, other{x2.ptr, w2.ptr, y2.ptr};

  struct Scenario {
    const char* name;
    std::function<void(int, int)> step;  // (op, i)
  };
  const std::vector<Scenario> scenarios = {
      {"A only, one handle", [&](int op, int) { call(h1, op, a, one, ws.ptr, ws_bytes); }},
      {"A,B alternating, one handle",
       [&](int op, int i) { call(h1, op, i % 2 ? b : a, one, ws.ptr, ws_bytes); }},
      {"A,B alternating, a handle each",
       [&](int op, int i) { call(i % 2 ? h2 : h1, op, i % 2 ? b : a, one, ws.ptr, ws_bytes); }},
      {"A,B alternating, a handle each, cudnnSetStream per call",
       [&](int op, int i) {
         cudnnHandle_t h = i % 2 ? h2 : h1;
         check(cudnnSetStream(h, stream), "set stream");
         call(h, op, i % 2 ? b : a, one, ws.ptr, ws_bytes);
       }},
      {"8 convolutions in turn, one handle",
       [&](int op, int i) { call(h1, op, convs[i % kShapeCount], one, ws.ptr, ws_bytes); }},
      {"8 convolutions in turn, a handle each",
       [&](int op, int i) { call(per_conv[i % kShapeCount], op, convs[i % kShapeCount], one, ws.ptr, ws_bytes); }},
      {"8 convolutions in turn, a handle each, cudnnSetStream per call",
       [&](int op, int i) {
         check(cudnnSetStream(per_conv[i % kShapeCount], stream), "set stream");
         call(per_conv[i % kShapeCount], op, convs[i % kShapeCount], one, ws.ptr, ws_bytes);
       }},
      {"A and A' (same content, other descriptors), one handle",
       [&](int op, int i) { call(h1, op, i % 2 ? a_again : a, one, ws.ptr, ws_bytes); }},
      {"A, data pointers alternating, one handle",
       [&](int op, int i) { call(h1, op, a, i % 2 ? other : one, ws.ptr, ws_bytes); }},
      {"A, workspace pointer alternating, one handle",
       [&](int op, int i) { call(h1, op, a, one, i % 2 ? ws2.ptr : ws.ptr, ws_bytes); }},
      {"A, workspace size alternating (64 MiB, 32 MiB), one handle",
       [&](int op, int i) { call(h1, op, a, one, ws.ptr, i % 2 ? ws_bytes / 2 : ws_bytes); }},
  };

  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "properties");
  std::printf("GPU: %s, cuDNN %zu, %s %s, %d calls per round, median of 7 rounds\n", prop.name, cudnnGetVersion(),
              type_name.c_str(), layout.c_str(), calls);
  std::printf("%-5s %-64s %10s %10s\n", "op", "scenario", "host us", "gpu us");
  for (int op = 0; op < 3; ++op) {
    for (const Scenario& s : scenarios) {
      const Timing t = time_rounds(stream, calls, [&](int i) { s.step(op, i); });
      std::printf("%-5s %-64s %10.1f %10.1f\n", bench::kOpNames[op], s.name, t.host_us, t.gpu_us);
    }
  }

  // What a handle costs: creation time and device memory, over 32 handles.
  size_t free_before = 0, free_after = 0, total = 0;
  check(cudaMemGetInfo(&free_before, &total), "mem info");
  std::vector<cudnnHandle_t> many(32);
  const auto t0 = std::chrono::steady_clock::now();
  for (auto& h : many) check(cudnnCreate(&h), "cudnnCreate");
  const auto t1 = std::chrono::steady_clock::now();
  check(cudaMemGetInfo(&free_after, &total), "mem info");
  // A first call on each, since cuDNN may allocate lazily.
  for (auto& h : many) {
    check(cudnnSetStream(h, stream), "set stream");
    call(h, 0, a, one, ws.ptr, ws_bytes);
  }
  check(cudaStreamSynchronize(stream), "sync");
  size_t free_used = 0;
  check(cudaMemGetInfo(&free_used, &total), "mem info");
  std::printf("handles: %.2f ms to create each; device memory per handle %.2f MiB created, %.2f MiB after a call\n",
              std::chrono::duration<double, std::milli>(t1 - t0).count() / many.size(),
              double(free_before - free_after) / many.size() / (1 << 20),
              double(free_before - free_used) / many.size() / (1 << 20));
  for (auto& h : many) cudnnDestroy(h);
  return 0;
}
