// Live benchmark on the GPU: every distinct convolution kernel of a network (forward, backward data,
// backward filter) through plain cuDNN, choosing as frameworks do (the fastest algorithm that
// cudnnFind*Algorithm reports within the workspace limit), and through UcudnnHandle_t.
//
// Timing: CUDA events, warm-up calls first, the median of --iterations calls per kernel, and the
// median of --iterations runs of the whole sequence of kernels, plain and ucudnn runs alternating.
// Inputs are random, not zero.
// A kernel's time is what the planner predicts: its calls queued behind a StreamGate, the longer
// of the host's time to queue them and the GPU's time to run them (CUDA events). The whole
// sequence is timed as a program runs it, the host launching while the GPU works.
//
// Precision and layout as frameworks use them (--data-type, --layout): half and bfloat16 with
// CUDNN_TENSOR_OP_MATH and FP32 accumulation, as PyTorch sets them; float with cuDNN's default
// math (TF32 allowed), or --math fma for strict FP32. Plain cuDNN runs each kernel with the math
// type of the Find result it picks, as PyTorch does.
//
// ucudnn replays a call that recurs with the same buffers as a CUDA graph (its default; the
// sequence reuses its buffers, as training does); --graph-replay 0 issues every call to cuDNN, to
// separate what replay gives from what micro-batching gives.

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/units.h"
#include "runtime/stream_gate.h"
#include "tools/networks.h"
#include "ucudnn/ucudnn.h"
#include "bench_support.h"

namespace {

using bench::check;
using bench::DeviceMemory;
using bench::fail;
using bench::kOpNames;
using bench::ucudnn_choice;



size_t element_bytes(cudnnDataType_t type) { return type == CUDNN_DATA_FLOAT ? 4 : 2; }

// Uniform in [-1, 1), converted on the host to the tensor's type.
void fill_random(void* device, size_t count, cudnnDataType_t type, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> host(count);
  for (auto& v : host) v = dist(rng);
  if (type == CUDNN_DATA_FLOAT) {
    check(cudaMemcpy(device, host.data(), count * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
    return;
  }
  std::vector<unsigned short> narrow(count);
  for (size_t i = 0; i < count; ++i) {
    if (type == CUDNN_DATA_HALF) {
      const __half h = __float2half_rn(host[i]);
      std::memcpy(&narrow[i], &h, 2);
    } else {
      const __nv_bfloat16 b = __float2bfloat16_rn(host[i]);
      std::memcpy(&narrow[i], &b, 2);
    }
  }
  check(cudaMemcpy(device, narrow.data(), count * 2, cudaMemcpyHostToDevice), "cudaMemcpy");
}

struct Layer {
  ucudnn::ConvLayerSpec spec;
  int n;
  cudnnTensorDescriptor_t x, y;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
  std::unique_ptr<DeviceMemory> x_mem, y_mem, w_mem;
};

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
    ucudnn::StreamGate gate;
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

// One kernel ready to run: algorithm, workspace, and the call.
struct ConvDescriptorDeleter {
  void operator()(cudnnConvolutionStruct* d) const { cudnnDestroyConvolutionDescriptor(d); }
};
using OwnedConvDescriptor = std::unique_ptr<cudnnConvolutionStruct, ConvDescriptorDeleter>;

struct Kernel {
  std::string layer, op;
  int algo = -1;
  int math_type = CUDNN_DEFAULT_MATH;  // plain cuDNN: the Find result's; ucudnn: the plan's first run's
  size_t workspace = 0;
  OwnedConvDescriptor conv;  // plain cuDNN: the layer's convolution with the chosen math type
  std::unique_ptr<DeviceMemory> workspace_mem;
  std::function<void()> launch;
  float time_ms = 0;  // queued: max(host, GPU)
  UcudnnPlan plan;  // ucudnn only
};

template <typename Handle>
std::function<void()> make_launch(Handle handle, const Layer& l, cudnnConvolutionDescriptor_t conv, int op, int algo,
                                  void* ws, size_t ws_bytes) {
  static const float one = 1.0f, zero = 0.0f;
  return [=, &l]() {
    switch (op) {
      case 0:
        check(cudnnConvolutionForward(handle, &one, l.x, l.x_mem->ptr, l.w, l.w_mem->ptr, conv,
                                      static_cast<cudnnConvolutionFwdAlgo_t>(algo), ws, ws_bytes, &zero, l.y,
                                      l.y_mem->ptr),
              "forward");
        break;
      case 1:
        check(cudnnConvolutionBackwardData(handle, &one, l.w, l.w_mem->ptr, l.y, l.y_mem->ptr, conv,
                                           static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), ws, ws_bytes, &zero,
                                           l.x, l.x_mem->ptr),
              "backward data");
        break;
      default:
        check(cudnnConvolutionBackwardFilter(handle, &one, l.x, l.x_mem->ptr, l.y, l.y_mem->ptr, conv,
                                             static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), ws, ws_bytes, &zero,
                                             l.w, l.w_mem->ptr),
              "backward filter");
    }
  };
}

// Plain cuDNN as frameworks use it: the fastest Find result within the limit.
int plain_choice(cudnnHandle_t h, const Layer& l, int op, size_t limit, size_t* ws, int* math_type) {
  int returned = 0;
  auto pick = [&](auto* results) {
    for (int i = 0; i < returned; ++i) {
      if (results[i].status == CUDNN_STATUS_SUCCESS && results[i].memory <= limit) {
        *ws = results[i].memory;
        *math_type = results[i].mathType;
        return static_cast<int>(results[i].algo);
      }
    }
    return -1;
  };
  if (op == 0) {
    cudnnConvolutionFwdAlgoPerf_t r[16];
    check(cudnnFindConvolutionForwardAlgorithm(h, l.x, l.w, l.conv, l.y, 16, &returned, r), "find fwd");
    return pick(r);
  }
  if (op == 1) {
    cudnnConvolutionBwdDataAlgoPerf_t r[16];
    check(cudnnFindConvolutionBackwardDataAlgorithm(h, l.w, l.y, l.conv, l.x, 16, &returned, r), "find bwdd");
    return pick(r);
  }
  cudnnConvolutionBwdFilterAlgoPerf_t r[16];
  check(cudnnFindConvolutionBackwardFilterAlgorithm(h, l.x, l.y, l.conv, l.w, 16, &returned, r), "find bwdf");
  return pick(r);
}

std::string describe_plan(const UcudnnPlan& plan) {
  std::string out;
  for (const auto& run : plan.runs) {
    if (!out.empty()) out += " + ";
    out += std::to_string(run.count) + " x " + std::to_string(run.size) +
           (run.engine.empty() ? " algo " + std::to_string(run.algo) : " " + run.engine);
  }
  return out;
}

struct Options {
  std::string limit_text = "64MiB", policy_text = "powerOfTwo", json_path, total_text;
  int batch = 0, iterations = 20, warmup = 3, graph_replay = 1;
  std::string network_name = "alexnet";
  std::string data_type_text = "float", layout_text = "NCHW", math_text = "default";
  std::string candidates_text = "both";
  bool list_kernels = false;
};

// Parses the command line; an exit status where the program is done (help, a usage error).
std::optional<int> parse_options(int argc, char** argv, Options* o) {
  CLI::App app{"Times a network's convolutions through plain cuDNN and through ucudnn (needs a GPU)"};
  app.add_option("--workspace-limit", o->limit_text, "per-kernel workspace limit");
  app.add_option("--policy", o->policy_text, "all, powerOfTwo or undivided")
      ->check(CLI::IsMember({"all", "powerOfTwo", "undivided"}, CLI::ignore_case));
  app.add_option("--net", o->network_name, "a built-in network (alexnet, resnet18, resnet50, vgg16, densenet40) or a "
                                           "network file; every distinct convolution runs once per sequence");
  app.add_option("--batch", o->batch, "mini-batch size (default: the network's)")->check(CLI::PositiveNumber);
  app.add_option("--iterations", o->iterations, "timed calls per measurement (median)")->check(CLI::PositiveNumber);
  app.add_option("--json", o->json_path, "also write the results as JSON to this file");
  app.add_option("--graph-replay", o->graph_replay,
                 "1: ucudnn replays recurring calls as CUDA graphs (its default); 0: every call is issued to cuDNN")
      ->check(CLI::IsMember({0, 1}));
  app.add_flag("--list-kernels", o->list_kernels, "print how many kernels (3 per distinct convolution) the network has");
  app.add_option("--data-type", o->data_type_text, "float, half or bfloat16 (half and bfloat16 with tensor-op math)")
      ->check(CLI::IsMember({"float", "half", "bfloat16"}));
  app.add_option("--layout", o->layout_text, "NCHW or NHWC (channels-last)")->check(CLI::IsMember({"NCHW", "NHWC"}));
  app.add_option("--math", o->math_text, "float only: default (cuDNN's, TF32 allowed) or fma (strict FP32)")
      ->check(CLI::IsMember({"default", "fma"}));
  app.add_option("--candidates", o->candidates_text,
                 "what ucudnn plans with: legacy (cuDNN's legacy algorithms), engines (its graph API) or both")
      ->check(CLI::IsMember({"legacy", "engines", "both"}));
  app.add_option("--total-workspace", o->total_text,
                 "run ucudnn in WD mode with this total budget (plain cuDNN keeps --workspace-limit per kernel)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "ucudnn_conv_benchmark: error: %s\n", e.what());
    return 2;
  }
  return std::nullopt;
}

// The options' values, checked.
struct Settings {
  size_t limit = 0;
  size_t total_workspace = 0;  // 0: WR mode
  UcudnnBatchSizePolicy_t policy = UCUDNN_BATCH_SIZE_POLICY_POWER_OF_TWO;
  cudnnDataType_t data_type = CUDNN_DATA_FLOAT;
  bool nhwc = false;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;  // the caller's math type, as a framework sets it
};

Settings settings_of(const Options& o) {
  Settings settings;
  const auto limit = ucudnn::parse_byte_size(o.limit_text);
  if (!limit) fail(limit.message());
  settings.limit = *limit;
  if (!o.total_text.empty()) {
    const auto total = ucudnn::parse_total_workspace(o.total_text);
    if (!total) fail("--total-workspace: " + total.message());
    settings.total_workspace = *total;
  }
  std::string policy;
  for (char c : o.policy_text) policy.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  settings.policy = policy == "all"         ? UCUDNN_BATCH_SIZE_POLICY_ALL
                    : policy == "undivided" ? UCUDNN_BATCH_SIZE_POLICY_UNDIVIDED
                                            : UCUDNN_BATCH_SIZE_POLICY_POWER_OF_TWO;
  settings.data_type = o.data_type_text == "half"       ? CUDNN_DATA_HALF
                       : o.data_type_text == "bfloat16" ? CUDNN_DATA_BFLOAT16
                                                        : CUDNN_DATA_FLOAT;
  settings.nhwc = o.layout_text == "NHWC";
  if (settings.data_type != CUDNN_DATA_FLOAT) {
    if (o.math_text == "fma") fail("--math fma is for --data-type float");
    settings.math = CUDNN_TENSOR_OP_MATH;
  } else if (o.math_text == "fma") {
    settings.math = CUDNN_FMA_MATH;
  }
  return settings;
}

ucudnn::Network network_of(const Options& o) {
  auto network = ucudnn::resolve_network(o.network_name);
  if (!network) fail(network.message());
  return std::move(network).value();
}

// The layer's convolution as a framework describes it: FP32 accumulation, its math type.
cudnnConvolutionDescriptor_t make_conv(const ucudnn::ConvLayerSpec& spec, cudnnMathType_t math) {
  cudnnConvolutionDescriptor_t conv;
  check(cudnnCreateConvolutionDescriptor(&conv), "desc");
  check(cudnnSetConvolution2dDescriptor(conv, spec.pad[0], spec.pad[1], spec.stride[0], spec.stride[1],
                                        spec.dilation[0], spec.dilation[1], CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        "conv");
  check(cudnnSetConvolutionGroupCount(conv, spec.groups), "groups");
  check(cudnnSetConvolutionMathType(conv, math), "math type");
  return conv;
}

// A layer's descriptors and random tensors on the device, in the settings' type and layout.
Layer make_layer(const ucudnn::ConvLayerSpec& spec, const Settings& settings, std::mt19937& rng) {
  if (spec.spatial.size() != 2) fail("layer " + spec.name + ": only 2-d layers here");
  const auto key = ucudnn::to_conv_key(spec, ucudnn::ConvOp::kForward);
  if (!key) fail(key.message());
  const cudnnDataType_t type = settings.data_type;
  const cudnnTensorFormat_t format = settings.nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  Layer l{spec, spec.batch, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  check(cudnnCreateTensorDescriptor(&l.x), "desc");
  check(cudnnCreateTensorDescriptor(&l.y), "desc");
  check(cudnnCreateFilterDescriptor(&l.w), "desc");
  check(cudnnSetTensor4dDescriptor(l.x, format, type, spec.batch, spec.channels, spec.spatial[0], spec.spatial[1]), "x");
  check(cudnnSetFilter4dDescriptor(l.w, type, format, spec.filters, spec.channels / spec.groups, spec.filter[0],
                                   spec.filter[1]),
        "w");
  l.conv = make_conv(spec, settings.math);
  int n, c, h, w;
  check(cudnnGetConvolution2dForwardOutputDim(l.conv, l.x, l.w, &n, &c, &h, &w), "output dims");
  check(cudnnSetTensor4dDescriptor(l.y, format, type, n, c, h, w), "y");
  const size_t x_count = size_t(spec.batch) * spec.channels * spec.spatial[0] * spec.spatial[1],
               y_count = size_t(n) * c * h * w,
               w_count = size_t(spec.filters) * (spec.channels / spec.groups) * spec.filter[0] * spec.filter[1];
  l.x_mem = std::make_unique<DeviceMemory>(x_count * element_bytes(type));
  l.y_mem = std::make_unique<DeviceMemory>(y_count * element_bytes(type));
  l.w_mem = std::make_unique<DeviceMemory>(w_count * element_bytes(type));
  fill_random(l.x_mem->ptr, x_count, type, rng);
  fill_random(l.y_mem->ptr, y_count, type, rng);
  fill_random(l.w_mem->ptr, w_count, type, rng);
  return l;
}

std::vector<Layer> make_layers(const ucudnn::Network& network, const Settings& settings, int batch) {
  std::mt19937 rng(20261122);
  std::vector<Layer> layers;
  for (ucudnn::ConvLayerSpec spec : network.layers) {
    if (batch > 0) spec.batch = batch;
    layers.push_back(make_layer(spec, settings, rng));
  }
  return layers;
}

void destroy_layers(std::vector<Layer>& layers) {
  for (Layer& l : layers) {
    cudnnDestroyTensorDescriptor(l.x);
    cudnnDestroyTensorDescriptor(l.y);
    cudnnDestroyFilterDescriptor(l.w);
    cudnnDestroyConvolutionDescriptor(l.conv);
  }
}

// A kernel with its workspace allocated and its call bound.
template <typename Handle>
Kernel make_kernel(Handle handle, const Layer& l, int op, int algo, size_t workspace, OwnedConvDescriptor conv = nullptr) {
  Kernel k;
  k.layer = l.spec.name;
  k.op = kOpNames[op];
  k.algo = algo;
  k.workspace = workspace;
  k.conv = std::move(conv);
  k.workspace_mem = std::make_unique<DeviceMemory>(k.workspace);
  k.launch = make_launch(handle, l, k.conv ? k.conv.get() : l.conv, op, k.algo, k.workspace_mem->ptr, k.workspace);
  return k;
}

double seconds_since(std::chrono::steady_clock::time_point started) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

// Plain cuDNN's kernels and the time its Find calls took.
std::vector<Kernel> plan_plain(cudnnHandle_t plain, const std::vector<Layer>& layers, size_t limit, double* seconds) {
  std::vector<Kernel> kernels;
  const auto started = std::chrono::steady_clock::now();
  for (const Layer& l : layers) {
    for (int op = 0; op < 3; ++op) {
      size_t workspace = 0;
      int math_type = CUDNN_DEFAULT_MATH;
      const int algo = plain_choice(plain, l, op, limit, &workspace, &math_type);
      if (algo < 0) fail(l.spec.name + " " + kOpNames[op] + ": plain cuDNN has no algorithm within the limit");
      // As PyTorch does: the chosen result's math type on the convolution it runs.
      OwnedConvDescriptor conv(make_conv(l.spec, static_cast<cudnnMathType_t>(math_type)));
      kernels.push_back(make_kernel(plain, l, op, algo, workspace, std::move(conv)));
      kernels.back().math_type = math_type;
    }
  }
  *seconds = seconds_since(started);
  return kernels;
}

// What ucudnn's planning gave and took.
struct UcudnnPlanning {
  std::vector<Kernel> kernels;
  UcudnnWorkspaceDivisionInfo division{};
  double seconds = 0, benchmark_seconds = 0, solve_seconds = 0;
};

// ucudnn's time in benchmarking and in solving between two snapshots of its statistics.
void add_statistics(const UcudnnStatistics& before, const UcudnnStatistics& after, UcudnnPlanning* planning) {
  planning->benchmark_seconds = 0;
  planning->solve_seconds = after.divisionSeconds - before.divisionSeconds;
  for (int op = 0; op < 3; ++op) {
    planning->benchmark_seconds += after.op[op].benchmarkSeconds - before.op[op].benchmarkSeconds;
    planning->solve_seconds += after.op[op].solveSeconds - before.op[op].solveSeconds;
  }
}

UcudnnPlanning plan_ucudnn(UcudnnHandle_t handle, const std::vector<Layer>& layers, size_t total_workspace) {
  UcudnnPlanning planning;
  UcudnnStatistics before;
  check(ucudnnGetStatistics(&before), "statistics");
  const auto started = std::chrono::steady_clock::now();
  for (const Layer& l : layers) {
    for (int op = 0; op < 3; ++op) {
      size_t workspace = 0;
      const int algo = ucudnn_choice(handle, l, op, &workspace);
      planning.kernels.push_back(make_kernel(handle, l, op, algo, workspace));
    }
  }
  if (total_workspace > 0) {
    check(ucudnnOptimize(handle), "optimize");  // WD: one division for all kernels
    check(ucudnnGetWorkspaceDivisionInfo(handle, &planning.division), "division info");
  }
  for (size_t i = 0; i < planning.kernels.size(); ++i) {
    const Layer& l = layers[i / 3];
    check(ucudnnGetPlan(handle, static_cast<UcudnnConvolutionOp_t>(i % 3), l.x, l.w, l.conv, l.y,
                        UCUDNN_WORKSPACE_LIMIT_DEFAULT, &planning.kernels[i].plan),
          "plan");
  }
  planning.seconds = seconds_since(started);
  UcudnnStatistics after;
  check(ucudnnGetStatistics(&after), "statistics");
  add_statistics(before, after, &planning);
  return planning;
}

// Each kernel's median, queued; then each whole sequence's median, live.
void time_kernels(std::vector<Kernel>& kernels, const Options& o) {
  for (Kernel& k : kernels) k.time_ms = time_median(k.launch, o.warmup, o.iterations, nullptr, true);
}
// The plain and the ucudnn sequence alternate, run by run, so that drift in the host's pace (large
// where legacy cuDNN calls are host-bound, as in FP16) affects both alike; each side's median is kept.
void time_sequences(std::vector<Kernel>& plain, std::vector<Kernel>& ucudnn, const Options& o, float* plain_ms,
                    float* ucudnn_ms) {
  auto sequence = [](std::vector<Kernel>& kernels) {
    return [&kernels]() {
      for (Kernel& k : kernels) k.launch();
    };
  };
  std::vector<float> plain_times, ucudnn_times;
  for (int i = 0; i < o.iterations; ++i) {
    const int warmup = i == 0 ? 1 : 0;
    plain_times.push_back(time_median(sequence(plain), warmup, 1, nullptr, false));
    ucudnn_times.push_back(time_median(sequence(ucudnn), warmup, 1, nullptr, false));
  }
  *plain_ms = median(plain_times);
  *ucudnn_ms = median(ucudnn_times);
}

// Everything a run measured, for the report.
struct Results {
  cudaDeviceProp prop;
  int batch = 0;
  std::vector<Kernel> plain_kernels;
  double plain_seconds = 0;
  UcudnnPlanning ucudnn;
  float plain_sequence = 0, ucudnn_sequence = 0;
};

// The header lines of the table, and the JSON object's first fields.
nlohmann::ordered_json report_header(const Options& o, const Settings& settings, const Results& r) {
  const int cudnn_version = static_cast<int>(cudnnGetVersion());
  const UcudnnWorkspaceDivisionInfo& division = r.ucudnn.division;
  std::printf("GPU: %s (sm_%d%d), cuDNN %d, %s batch %d, workspace limit %s per kernel, policy %s, graph replay %s, "
              "median of %d\n",
              r.prop.name, r.prop.major, r.prop.minor, cudnn_version, o.network_name.c_str(), r.batch,
              o.limit_text.c_str(), o.policy_text.c_str(), o.graph_replay ? "on" : "off", o.iterations);
  if (settings.total_workspace > 0) {
    std::printf("ucudnn in WD mode: total %s, buffer %s, %d variables solved in %.2f ms\n", o.total_text.c_str(),
                ucudnn::format_byte_size(division.bufferBytes).c_str(), division.variables, division.solveMs);
  }
  std::printf("per kernel: calls queued ahead, the longer of host and GPU time\n");
  std::printf("%-11s %-5s %10s %5s %10s %10s %8s %10s  %s\n", "layer", "op", "cudnn ms", "algo", "ucudnn ms",
              "predicted", "speedup", "workspace", "plan");
  nlohmann::ordered_json json;
  json["gpu"] = r.prop.name;
  json["cudnn_version"] = cudnn_version;
  json["network"] = o.network_name;
  json["batch"] = r.batch;
  json["workspace_limit_bytes"] = settings.limit;
  json["policy"] = o.policy_text;
  json["data_type"] = o.data_type_text;
  json["layout"] = o.layout_text;
  json["math"] = o.data_type_text == "float" ? o.math_text : "tensor_op";
  json["total_workspace_bytes"] = settings.total_workspace;
  json["graph_replay"] = o.graph_replay == 1;
  json["candidates"] = o.candidates_text;
  if (settings.total_workspace > 0) {
    json["wd_buffer_bytes"] = division.bufferBytes;
    json["wd_variables"] = division.variables;
    json["wd_solve_ms"] = division.solveMs;
  }
  json["iterations"] = o.iterations;
  return json;
}

struct Totals {
  float plain = 0, ucudnn = 0, predicted = 0;
};

// One table row and one JSON entry per kernel; returns the sums.
Totals report_kernels(const Settings& settings, const Results& r, nlohmann::ordered_json* json) {
  Totals totals;
  for (size_t i = 0; i < r.plain_kernels.size(); ++i) {
    const Kernel& p = r.plain_kernels[i];
    const Kernel& u = r.ucudnn.kernels[i];
    totals.plain += p.time_ms;
    totals.ucudnn += u.time_ms;
    totals.predicted += u.plan.predictedTimeMs;
    const size_t used = settings.total_workspace > 0 ? u.plan.workspaceBytes : u.workspace;
    std::printf("%-11s %-5s %10.3f %5d %10.3f %10.3f %7.2fx %10s  %s\n", p.layer.c_str(), p.op.c_str(), p.time_ms,
                p.algo, u.time_ms, u.plan.predictedTimeMs, p.time_ms / u.time_ms,
                ucudnn::format_byte_size(used).c_str(), describe_plan(u.plan).c_str());
    (*json)["kernels"].push_back({{"layer", p.layer},
                                  {"op", p.op},
                                  {"cudnn_time_ms", p.time_ms},
                                  {"cudnn_algo", p.algo},
                                  {"cudnn_workspace_bytes", p.workspace},
                                  {"cudnn_math_type", p.math_type},
                                  {"ucudnn_time_ms", u.time_ms},
                                  {"ucudnn_predicted_ms", u.plan.predictedTimeMs},
                                  {"ucudnn_workspace_bytes", used},
                                  {"ucudnn_plan", describe_plan(u.plan)}});
  }
  return totals;
}

// The summary lines, and the JSON object's last fields.
void report_summary(const Results& r, const Totals& t, nlohmann::ordered_json* json) {
  const UcudnnPlanning& u = r.ucudnn;
  std::printf("sum of kernel medians: cuDNN %.2f ms, ucudnn %.2f ms (predicted %.2f), speedup %.2fx\n", t.plain,
              t.ucudnn, t.predicted, t.plain / t.ucudnn);
  std::printf("whole sequence live (median): cuDNN %.2f ms, ucudnn %.2f ms, speedup %.2fx\n", r.plain_sequence,
              r.ucudnn_sequence, r.plain_sequence / r.ucudnn_sequence);
  std::printf("algorithm choice: cuDNN Find %.2f s, ucudnn %.2f s (benchmarking %.2f s, solving %.4f s)\n",
              r.plain_seconds, u.seconds, u.benchmark_seconds, u.solve_seconds);
  (*json)["cudnn_sequence_ms"] = r.plain_sequence;
  (*json)["ucudnn_sequence_ms"] = r.ucudnn_sequence;
  (*json)["cudnn_kernel_sum_ms"] = t.plain;
  (*json)["ucudnn_kernel_sum_ms"] = t.ucudnn;
  (*json)["ucudnn_predicted_ms"] = t.predicted;
  (*json)["cudnn_find_seconds"] = r.plain_seconds;
  (*json)["ucudnn_planning_seconds"] = u.seconds;
  (*json)["ucudnn_benchmark_seconds"] = u.benchmark_seconds;
  (*json)["ucudnn_solve_seconds"] = u.solve_seconds;
}

void write_json(const std::string& path, const nlohmann::ordered_json& json) {
  if (path.empty()) return;
  std::ofstream out(path);
  out << json.dump(2) << "\n";
  if (!out) fail("cannot write " + path);
}

// Plans and times every kernel both ways.
Results measure(const cudaDeviceProp& prop, cudnnHandle_t plain, UcudnnHandle_t handle, const std::vector<Layer>& layers,
                const Options& o, const Settings& settings) {
  Results r;
  r.prop = prop;
  r.batch = layers.front().n;
  r.plain_kernels = plan_plain(plain, layers, settings.limit, &r.plain_seconds);
  r.ucudnn = plan_ucudnn(handle, layers, settings.total_workspace);
  time_kernels(r.plain_kernels, o);
  time_kernels(r.ucudnn.kernels, o);
  time_sequences(r.plain_kernels, r.ucudnn.kernels, o, &r.plain_sequence, &r.ucudnn_sequence);
  return r;
}

UcudnnHandle_t make_ucudnn_handle(const Settings& settings, const Options& o) {
  UcudnnHandle_t handle;
  check(cudnnCreate(&handle), "cudnnCreate(UcudnnHandle_t)");
  const UcudnnCandidates_t candidates = o.candidates_text == "legacy"    ? UCUDNN_CANDIDATES_LEGACY
                                        : o.candidates_text == "engines" ? UCUDNN_CANDIDATES_ENGINES
                                                                         : UCUDNN_CANDIDATES_BOTH;
  check(ucudnnSetCandidates(handle, candidates), "candidates");
  const int graph_replay = o.graph_replay;
  check(ucudnnSetGraphReplay(handle, graph_replay), "graph replay");
  check(ucudnnSetBatchSizePolicy(handle, settings.policy), "policy");
  check(ucudnnSetDefaultWorkspaceLimit(handle, settings.limit), "limit");
  check(ucudnnSetTotalWorkspaceSize(settings.total_workspace), "total workspace");
  return handle;
}

}  // namespace

int main(int argc, char** argv) {
  bench::program_name = "ucudnn_conv_benchmark";
  Options options;
  if (const auto done = parse_options(argc, argv, &options)) return *done;
  const Settings settings = settings_of(options);
  if (options.list_kernels) {
    std::printf("%zu\n", network_of(options).layers.size() * 3);
    return 0;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) fail("no CUDA device");
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "device properties");
  cudnnHandle_t plain;
  check(cudnnCreate(&plain), "cudnnCreate");
  UcudnnHandle_t handle = make_ucudnn_handle(settings, options);
  std::vector<Layer> layers = make_layers(network_of(options), settings, options.batch);

  Results results = measure(prop, plain, handle, layers, options, settings);
  nlohmann::ordered_json json = report_header(options, settings, results);
  const Totals totals = report_kernels(settings, results, &json);
  report_summary(results, totals, &json);
  write_json(options.json_path, json);

  destroy_layers(layers);
  cudnnDestroy(handle);
  cudnnDestroy(plain);
  return 0;
}
