// Live benchmark on the GPU: the convolution kernels of a training step of a network (every
// distinct convolution's forward, backward data and backward filter, but not the input layer's
// backward data unless --input-gradient: training never computes the gradient of its images),
// through ucudnn and, in the same run, through three baselines:
//   - plain legacy: cuDNN's legacy API as frameworks call it, the fastest cudnnFind* result
//     within the per-kernel workspace limit;
//   - best engine at the limit: cuDNN's fastest single candidate (legacy algorithm or graph-API
//     engine configuration) on the whole batch within the same limit, run undivided (a second
//     UcudnnHandle_t: policy undivided, candidates both);
//   - best engine unlimited: the same with a per-kernel limit that stands for none (half the
//     device memory free once the network's tensors are allocated);
// --baselines plain keeps the first only. The ratios are baseline time / ucudnn time (>1: ucudnn
// faster). In WD mode (--total-workspace) the baselines keep the per-kernel limit: WD's budget is
// process-wide, so it is set while ucudnn's kernels plan and run, and unset for the baselines'.
//
// Timing: CUDA events, warm-up calls first, the median of --iterations calls per kernel, and the
// median of --iterations runs of the whole sequence of kernels, the sides' runs alternating (in a
// rotating order), so that drift in the host's pace affects all alike. A kernel's time is what
// the planner predicts: its calls queued behind a StreamGate, the longer of the host's time to
// queue them and the GPU's time to run them. The whole sequence is timed as a program runs it,
// the host launching while the GPU works. Inputs are random, not zero. The sides share one
// workspace buffer, as a framework's layers do (ucudnn in WD mode uses its own).
//
// Precision and layout are each layer's own (network files' "data_type" and "layout"; built-in
// networks are float NCHW); --data-type and --layout impose one on every layer. Half and bfloat16
// run with CUDNN_TENSOR_OP_MATH and FP32 accumulation, as PyTorch sets them; float with cuDNN's
// default math (TF32 allowed), or --math fma for strict FP32. Plain cuDNN runs each kernel with
// the math type of the Find result it picks, as PyTorch does. 3-d layers run as NCDHW / NDHWC.
//
// ucudnn (and the best-engine baselines, which are ucudnn handles) replays a call that recurs with
// the same buffers as a CUDA graph (its default; the sequence reuses its buffers, as training
// does); --graph-replay 0 issues every call to cuDNN, to separate what replay gives from what
// micro-batching gives.

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "bench_support.h"
#include "core/candidate_kinds.h"
#include "core/units.h"
#include "runtime/stream_gate.h"
#include "tools/networks.h"
#include "ucudnn/ucudnn.h"

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
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;  // the caller's math type, as a framework sets it
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
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

struct ConvDescriptorDeleter {
  void operator()(cudnnConvolutionStruct* d) const { cudnnDestroyConvolutionDescriptor(d); }
};
using OwnedConvDescriptor = std::unique_ptr<cudnnConvolutionStruct, ConvDescriptorDeleter>;

// One kernel of one side, ready to run: its choice, the workspace it asks for, and the call.
struct Kernel {
  size_t layer = 0;  // index into the layers
  int op = 0;        // UcudnnConvolutionOp_t
  int algo = -1;
  int math_type = CUDNN_DEFAULT_MATH;  // plain cuDNN: the Find result's
  size_t workspace = 0;                // what the call is given (ucudnn in WD mode: 0, it uses its segment)
  OwnedConvDescriptor conv;            // plain cuDNN: the layer's convolution with the chosen math type
  std::function<void()> launch;
  float time_ms = 0;  // queued: max(host, GPU)
  UcudnnPlan plan;  // the sides on ucudnn handles
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
           " " + ucudnn::describe_candidate(run.algo, run.engine);
  }
  return out;
}

// ---- Options ----------------------------------------------------------------------------------

struct Options {
  std::string limit_text = "64MiB", policy_text = "powerOfTwo", json_path, total_text;
  int batch = 0, iterations = 20, warmup = 3, graph_replay = 1;
  std::string network_name = "alexnet";
  std::string data_type_text, layout_text;  // empty: each layer's own
  std::string math_text = "default", candidates_text = "both", baselines_text = "all";
  bool list_kernels = false, input_gradient = false;
};

// Parses the command line; an exit status where the program is done (help, a usage error).
std::optional<int> parse_options(int argc, char** argv, Options* o) {
  CLI::App app{"Times a network's training convolutions through ucudnn and three baselines in one run: plain "
               "legacy cuDNN, cuDNN's best single engine within the limit, and unlimited (needs a GPU)"};
  app.add_option("--workspace-limit", o->limit_text, "per-kernel workspace limit (of ucudnn and the baselines)");
  app.add_option("--policy", o->policy_text, "ucudnn's micro-batch sizes: all, powerOfTwo or undivided")
      ->check(CLI::IsMember({"all", "powerOfTwo", "undivided"}, CLI::ignore_case));
  app.add_option("--net", o->network_name, "a built-in network (alexnet, resnet18, resnet50, vgg16, densenet40) or a "
                                           "network file; every distinct convolution runs once per sequence");
  app.add_option("--batch", o->batch, "mini-batch size of every layer (default: the network's)")
      ->check(CLI::PositiveNumber);
  app.add_option("--iterations", o->iterations, "timed calls per measurement (median)")->check(CLI::PositiveNumber);
  app.add_option("--json", o->json_path, "also write the results as JSON to this file");
  app.add_option("--graph-replay", o->graph_replay,
                 "1: ucudnn handles replay recurring calls as CUDA graphs (their default); 0: every call is issued "
                 "to cuDNN")
      ->check(CLI::IsMember({0, 1}));
  app.add_flag("--list-kernels", o->list_kernels,
               "print how many kernels a training step runs (3 per distinct convolution, less the input layer's "
               "backward data unless --input-gradient) and exit; needs no GPU");
  app.add_flag("--input-gradient", o->input_gradient,
               "also run the input layer's backward data (the gradient of the images, which training leaves out)");
  app.add_option("--data-type", o->data_type_text,
                 "impose float, half or bfloat16 on every layer (default: each layer's own; built-in networks are "
                 "float); half and bfloat16 run with tensor-op math")
      ->check(CLI::IsMember({"float", "half", "bfloat16"}));
  app.add_option("--layout", o->layout_text,
                 "impose NCHW or NHWC (channels-last; NCDHW / NDHWC for 3-d layers) on every layer (default: each "
                 "layer's own; built-in networks are NCHW)")
      ->check(CLI::IsMember({"NCHW", "NHWC"}));
  app.add_option("--math", o->math_text, "float layers: default (cuDNN's, TF32 allowed) or fma (strict FP32)")
      ->check(CLI::IsMember({"default", "fma"}));
  app.add_option("--candidates", o->candidates_text,
                 "what ucudnn plans with: legacy (cuDNN's legacy algorithms), engines (its graph API) or both")
      ->check(CLI::IsMember({"legacy", "engines", "both"}));
  app.add_option("--total-workspace", o->total_text,
                 "run ucudnn in WD mode with this total budget (the baselines keep --workspace-limit per kernel)");
  app.add_option("--baselines", o->baselines_text,
                 "all: plain legacy cuDNN, the best single engine at the limit and unlimited (default); plain: plain "
                 "legacy cuDNN only (a faster run)")
      ->check(CLI::IsMember({"all", "plain"}));
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
  UcudnnCandidates_t candidates = UCUDNN_CANDIDATES_BOTH;
  ucudnn::tools::LayerOverrides overrides;          // --data-type, --layout, --batch
  cudnnMathType_t float_math = CUDNN_DEFAULT_MATH;  // float layers' math type, as a framework sets it
  bool all_baselines = true;
};

Settings settings_of(const Options& o) {
  Settings settings;
  const auto limit = ucudnn::parse_byte_size(o.limit_text);
  if (!limit) fail("--workspace-limit: " + limit.message());
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
  settings.candidates = o.candidates_text == "legacy"    ? UCUDNN_CANDIDATES_LEGACY
                        : o.candidates_text == "engines" ? UCUDNN_CANDIDATES_ENGINES
                                                         : UCUDNN_CANDIDATES_BOTH;
  if (!o.data_type_text.empty()) settings.overrides.data_type = ucudnn::tools::data_type_of_name(o.data_type_text);
  if (!o.layout_text.empty()) {
    settings.overrides.layout = o.layout_text == "NHWC" ? ucudnn::Layout::kNhwc : ucudnn::Layout::kNchw;
  }
  if (o.batch > 0) settings.overrides.batch = o.batch;
  if (o.math_text == "fma") {
    if (settings.overrides.data_type.value_or(0) != 0) fail("--math fma is for float layers; --data-type " +
                                                            o.data_type_text + " leaves none");
    settings.float_math = CUDNN_FMA_MATH;
  }
  settings.all_baselines = o.baselines_text == "all";
  return settings;
}

// The network with the options imposed, and the kernels of its training step. Prints a line for
// each value an option replaced (unless `quiet`).
struct Workload {
  ucudnn::tools::Network network;
  std::vector<ucudnn::tools::NetworkKernel> kernels;
};

Workload workload_of(const Options& o, const Settings& settings, bool quiet) {
  auto network = ucudnn::tools::resolve_network(o.network_name);
  if (!network) fail(network.message());
  Workload w{std::move(network).value(), {}};
  const auto notes = ucudnn::tools::apply_overrides(settings.overrides, &w.network);
  if (!notes) fail(notes.message());
  if (!quiet) {
    for (const std::string& note : *notes) std::printf("%s\n", note.c_str());
  }
  if (settings.float_math == CUDNN_FMA_MATH &&
      std::none_of(w.network.layers.begin(), w.network.layers.end(),
                   [](const ucudnn::ConvLayerSpec& l) { return l.data_type == CUDNN_DATA_FLOAT; })) {
    fail("--math fma is for float layers, and " + w.network.name + " has none");
  }
  w.kernels = ucudnn::tools::training_kernels(w.network, o.input_gradient);
  return w;
}

// ---- Layers: descriptors (N-d calls, so 2-d and 3-d alike) and device tensors -----------------

cudnnMathType_t math_of(const ucudnn::ConvLayerSpec& spec, const Settings& settings) {
  return spec.data_type == CUDNN_DATA_FLOAT ? settings.float_math : CUDNN_TENSOR_OP_MATH;
}

// The layer's convolution as a framework describes it: FP32 accumulation, the given math type.
cudnnConvolutionDescriptor_t make_conv(const ucudnn::ConvLayerSpec& spec, cudnnMathType_t math) {
  cudnnConvolutionDescriptor_t conv;
  check(cudnnCreateConvolutionDescriptor(&conv), "desc");
  check(cudnnSetConvolutionNdDescriptor(conv, static_cast<int>(spec.spatial.size()), spec.pad.data(),
                                        spec.stride.data(), spec.dilation.data(), CUDNN_CROSS_CORRELATION,
                                        CUDNN_DATA_FLOAT),
        "cudnnSetConvolutionNdDescriptor");
  check(cudnnSetConvolutionGroupCount(conv, spec.groups), "groups");
  check(cudnnSetConvolutionMathType(conv, math), "math type");
  return conv;
}

size_t product(const std::vector<int>& dims) {
  size_t n = 1;
  for (int d : dims) n *= static_cast<size_t>(d);
  return n;
}

std::string precision_of(const ucudnn::ConvLayerSpec& spec) {
  return ucudnn::tools::data_type_name(spec.data_type) + " " +
         ucudnn::tools::layout_name(spec.layout, spec.spatial.size());
}

// A layer's descriptors and random tensors on the device, in its type and layout.
Layer make_layer(const ucudnn::ConvLayerSpec& spec, const Settings& settings, std::mt19937& rng) {
  const auto key = ucudnn::to_conv_key(spec, ucudnn::ConvOp::kForward);
  if (!key) fail(key.message());
  const auto type = static_cast<cudnnDataType_t>(spec.data_type);
  const cudnnTensorFormat_t format = spec.layout == ucudnn::Layout::kNhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  const int rank = static_cast<int>(spec.spatial.size()) + 2;
  std::vector<int> x_dims = {spec.batch, spec.channels}, w_dims = {spec.filters, spec.channels / spec.groups};
  x_dims.insert(x_dims.end(), spec.spatial.begin(), spec.spatial.end());
  w_dims.insert(w_dims.end(), spec.filter.begin(), spec.filter.end());
  Layer l;
  l.spec = spec;
  l.math = math_of(spec, settings);
  const std::string where = "layer " + spec.name + " (" + precision_of(spec) + "): ";
  check(cudnnCreateTensorDescriptor(&l.x), "desc");
  check(cudnnCreateTensorDescriptor(&l.y), "desc");
  check(cudnnCreateFilterDescriptor(&l.w), "desc");
  check(cudnnSetTensorNdDescriptorEx(l.x, format, type, rank, x_dims.data()), (where + "x descriptor").c_str());
  check(cudnnSetFilterNdDescriptor(l.w, type, format, rank, w_dims.data()), (where + "filter descriptor").c_str());
  l.conv = make_conv(spec, l.math);
  std::vector<int> y_dims(rank);
  check(cudnnGetConvolutionNdForwardOutputDim(l.conv, l.x, l.w, rank, y_dims.data()),
        (where + "output dims").c_str());
  if (y_dims != key->y.dims) fail(where + "cuDNN's output dims differ from the network's");
  check(cudnnSetTensorNdDescriptorEx(l.y, format, type, rank, y_dims.data()), (where + "y descriptor").c_str());
  const size_t x_count = product(x_dims), y_count = product(y_dims), w_count = product(w_dims);
  l.x_mem = std::make_unique<DeviceMemory>(x_count * element_bytes(type));
  l.y_mem = std::make_unique<DeviceMemory>(y_count * element_bytes(type));
  l.w_mem = std::make_unique<DeviceMemory>(w_count * element_bytes(type));
  fill_random(l.x_mem->ptr, x_count, type, rng);
  fill_random(l.y_mem->ptr, y_count, type, rng);
  fill_random(l.w_mem->ptr, w_count, type, rng);
  return l;
}

std::vector<Layer> make_layers(const ucudnn::tools::Network& network, const Settings& settings) {
  std::mt19937 rng(20261122);
  std::vector<Layer> layers;
  for (const ucudnn::ConvLayerSpec& spec : network.layers) layers.push_back(make_layer(spec, settings, rng));
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

// ---- The sides: ucudnn and its baselines ------------------------------------------------------

enum class SideKind { kPlain, kBestAtLimit, kBestUnlimited, kUcudnn };

struct Side {
  SideKind kind = SideKind::kPlain;
  std::string label;   // in the summary lines: "plain legacy", "best engine at 8 MiB", ...
  std::string column;  // in the table: "legacy", "best@limit", ...
  std::string json;    // the JSON fields' prefix
  cudnnHandle_t plain = nullptr;  // kPlain
  UcudnnHandle_t handle;          // the others
  size_t limit = 0;               // per kernel
  size_t total_workspace = 0;     // WD's budget while this side plans and runs (ucudnn in WD mode)
  std::vector<Kernel> kernels;
  double planning_seconds = 0, benchmark_seconds = 0, solve_seconds = 0;
  UcudnnWorkspaceDivisionInfo division{};  // ucudnn in WD mode
  float sequence_ms = 0;

  Side(SideKind k, std::string label_text, std::string column_text, std::string json_prefix, size_t per_kernel)
      : kind(k), label(std::move(label_text)), column(std::move(column_text)), json(std::move(json_prefix)),
        limit(per_kernel) {}

  // The workspace a kernel takes: in WD its segment, else what its call is given.
  size_t workspace_of(const Kernel& k) const { return total_workspace > 0 ? k.plan.workspaceBytes : k.workspace; }
  size_t workspace_sum() const {
    size_t sum = 0;
    for (const Kernel& k : kernels) sum += workspace_of(k);
    return sum;
  }
  size_t workspace_max() const {
    size_t most = 0;
    for (const Kernel& k : kernels) most = std::max(most, workspace_of(k));
    return most;
  }
  float kernel_sum() const {
    float sum = 0;
    for (const Kernel& k : kernels) sum += k.time_ms;
    return sum;
  }
};

// WD's budget is process-wide: it is set while ucudnn's side plans and runs, and unset (WR) for
// the baselines' handles, which keep the per-kernel limit. Changing it outside WD runs is never needed.
class ProcessBudget {
 public:
  void set_for(const Side& side) {
    if (known_ && side.total_workspace == current_) return;
    check(ucudnnSetTotalWorkspaceSize(side.total_workspace), "ucudnnSetTotalWorkspaceSize");
    current_ = side.total_workspace;
    known_ = true;
  }

 private:
  bool known_ = false;  // UCUDNN_TOTAL_WORKSPACE_SIZE may have set one
  size_t current_ = 0;
};

UcudnnHandle_t make_ucudnn_handle(UcudnnBatchSizePolicy_t policy, UcudnnCandidates_t candidates, size_t limit,
                                  int graph_replay) {
  UcudnnHandle_t handle;
  check(cudnnCreate(&handle), "cudnnCreate(UcudnnHandle_t)");
  check(ucudnnSetCandidates(handle, candidates), "candidates");
  check(ucudnnSetGraphReplay(handle, graph_replay), "graph replay");
  check(ucudnnSetBatchSizePolicy(handle, policy), "policy");
  check(ucudnnSetDefaultWorkspaceLimit(handle, limit), "limit");
  return handle;
}

// Half the device memory free once the network's tensors are allocated: a per-kernel limit that
// no convolution reaches, leaving room for the other sides' workspaces and cuDNN's own.
size_t unlimited_limit() {
  size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  return free_bytes / 2 / (size_t{1} << 20) * (size_t{1} << 20);
}

// The sides in report order: plain legacy, the best-engine baselines (unless --baselines plain),
// ucudnn last.
std::vector<Side> make_sides(const Settings& settings, const Options& o) {
  std::vector<Side> sides;
  sides.emplace_back(SideKind::kPlain, "plain legacy", "legacy", "cudnn", settings.limit);
  check(cudnnCreate(&sides.back().plain), "cudnnCreate");
  if (settings.all_baselines) {
    sides.emplace_back(SideKind::kBestAtLimit, "best engine at " + ucudnn::format_byte_size(settings.limit),
                       "best@limit", "best_at_limit", settings.limit);
    sides.emplace_back(SideKind::kBestUnlimited, "best engine unlimited", "best@unlim", "best_unlimited",
                       unlimited_limit());
    for (Side* side : {&sides[1], &sides[2]}) {
      side->handle = make_ucudnn_handle(UCUDNN_BATCH_SIZE_POLICY_UNDIVIDED, UCUDNN_CANDIDATES_BOTH, side->limit,
                                        o.graph_replay);
    }
  }
  sides.emplace_back(SideKind::kUcudnn, "ucudnn", "ucudnn", "ucudnn", settings.limit);
  sides.back().total_workspace = settings.total_workspace;
  sides.back().handle = make_ucudnn_handle(settings.policy, settings.candidates, settings.limit, o.graph_replay);
  return sides;
}

void destroy_sides(std::vector<Side>& sides) {
  for (Side& side : sides) {
    side.kernels.clear();  // their descriptors first
    if (side.kind == SideKind::kPlain) {
      cudnnDestroy(side.plain);
    } else {
      cudnnDestroy(side.handle);
    }
  }
}

double seconds_since(std::chrono::steady_clock::time_point started) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

// Plain cuDNN's choices and the time its Find calls took.
void plan_plain(Side* side, const std::vector<Layer>& layers,
                const std::vector<ucudnn::tools::NetworkKernel>& kernels) {
  const auto started = std::chrono::steady_clock::now();
  for (const ucudnn::tools::NetworkKernel& nk : kernels) {
    const Layer& l = layers[nk.layer];
    Kernel k;
    k.layer = nk.layer;
    k.op = static_cast<int>(nk.op);
    k.algo = plain_choice(side->plain, l, k.op, side->limit, &k.workspace, &k.math_type);
    if (k.algo < 0) fail(l.spec.name + " " + kOpNames[k.op] + ": plain cuDNN has no algorithm within the limit");
    // As PyTorch does: the chosen result's math type on the convolution it runs.
    k.conv.reset(make_conv(l.spec, static_cast<cudnnMathType_t>(k.math_type)));
    side->kernels.push_back(std::move(k));
  }
  side->planning_seconds = seconds_since(started);
}

// A side on a ucudnn handle, planned as a framework asks: get_v7, then the workspace size; in WD
// one division for all its kernels. Its planning time, and the benchmarking and solving in it.
void plan_ucudnn(Side* side, const std::vector<Layer>& layers,
                 const std::vector<ucudnn::tools::NetworkKernel>& kernels) {
  UcudnnStatistics before{};
  check(ucudnnGetStatistics(&before), "statistics");
  const auto started = std::chrono::steady_clock::now();
  for (const ucudnn::tools::NetworkKernel& nk : kernels) {
    Kernel k;
    k.layer = nk.layer;
    k.op = static_cast<int>(nk.op);
    k.algo = ucudnn_choice(side->handle, layers[nk.layer], k.op, &k.workspace);
    side->kernels.push_back(std::move(k));
  }
  if (side->total_workspace > 0) {
    check(ucudnnOptimize(side->handle), "optimize");  // WD: one division for all kernels
    check(ucudnnGetWorkspaceDivisionInfo(side->handle, &side->division), "division info");
  }
  for (Kernel& k : side->kernels) {
    const Layer& l = layers[k.layer];
    check(ucudnnGetPlan(side->handle, static_cast<UcudnnConvolutionOp_t>(k.op), l.x, l.w, l.conv, l.y,
                        UCUDNN_WORKSPACE_LIMIT_DEFAULT, &k.plan),
          "plan");
    if (!k.plan.runs.empty()) k.math_type = k.plan.runs.front().mathType;
  }
  side->planning_seconds = seconds_since(started);
  UcudnnStatistics after{};
  check(ucudnnGetStatistics(&after), "statistics");
  side->solve_seconds = after.divisionSeconds - before.divisionSeconds;
  for (int op = 0; op < 3; ++op) {
    side->benchmark_seconds += after.op[op].benchmarkSeconds - before.op[op].benchmarkSeconds;
    side->solve_seconds += after.op[op].solveSeconds - before.op[op].solveSeconds;
  }
}

// Binds every kernel's call to the one workspace buffer the sides share (they run one at a time).
std::unique_ptr<DeviceMemory> bind_launches(std::vector<Side>& sides, const std::vector<Layer>& layers) {
  size_t largest = 0;
  for (const Side& side : sides) {
    for (const Kernel& k : side.kernels) largest = std::max(largest, k.workspace);
  }
  size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  if (largest > free_bytes) {
    fail("the largest workspace chosen (" + ucudnn::format_byte_size(largest) + ") exceeds the free device memory (" +
         ucudnn::format_byte_size(free_bytes) + ")");
  }
  auto buffer = std::make_unique<DeviceMemory>(largest);
  for (Side& side : sides) {
    for (Kernel& k : side.kernels) {
      const Layer& l = layers[k.layer];
      k.launch = side.kind == SideKind::kPlain
                     ? make_launch(side.plain, l, k.conv.get(), k.op, k.algo, buffer->ptr, k.workspace)
                     : make_launch(side.handle, l, l.conv, k.op, k.algo, buffer->ptr, k.workspace);
    }
  }
  return buffer;
}

// Each kernel's median, queued.
void time_kernels(Side& side, const Options& o) {
  for (Kernel& k : side.kernels) k.time_ms = time_median(k.launch, o.warmup, o.iterations, nullptr, true);
}

// The sides' whole sequences alternate, run by run, in a rotating order, so that drift in the
// host's pace (large where legacy cuDNN calls are host-bound, as in FP16) affects all alike; each
// side's median is kept.
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

// ---- The report -------------------------------------------------------------------------------

// Everything a run measured.
struct Results {
  cudaDeviceProp prop;
  std::vector<Side> sides;  // plain first, ucudnn last
  std::unique_ptr<DeviceMemory> workspace;

  const Side& ucudnn() const { return sides.back(); }
  const Side* find(SideKind kind) const {
    for (const Side& side : sides) {
      if (side.kind == kind) return &side;
    }
    return nullptr;
  }
  std::vector<const Side*> baselines() const {
    std::vector<const Side*> out;
    for (size_t i = 0; i + 1 < sides.size(); ++i) out.push_back(&sides[i]);
    return out;
  }
};

// "float NCHW" where every layer has it, else "mixed" (each layer's own is in the kernels' rows).
std::string uniform(const ucudnn::tools::Network& network,
                    const std::function<std::string(const ucudnn::ConvLayerSpec&)>& of) {
  for (const auto& layer : network.layers) {
    if (of(layer) != of(network.layers.front())) return "mixed";
  }
  return network.layers.empty() ? "" : of(network.layers.front());
}
std::string uniform_precision(const ucudnn::tools::Network& network) { return uniform(network, precision_of); }
std::string uniform_type(const ucudnn::tools::Network& network) {
  return uniform(network, [](const ucudnn::ConvLayerSpec& l) { return ucudnn::tools::data_type_name(l.data_type); });
}
std::string uniform_layout(const ucudnn::tools::Network& network) {
  return uniform(network, [](const ucudnn::ConvLayerSpec& l) { return ucudnn::tools::layout_name(l.layout); });
}

std::string mib(size_t bytes) { return ucudnn::format_byte_size(bytes); }

// The header lines of the table, and the JSON object's first fields.
nlohmann::ordered_json report_header(const Options& o, const Settings& settings, const Workload& w, const Results& r) {
  const int cudnn_version = static_cast<int>(cudnnGetVersion());
  const std::string precision = uniform_precision(w.network);
  std::printf("GPU: %s (sm_%d%d), cuDNN %d, %s batch %d, %s, %zu kernels, workspace limit %s per kernel, policy %s, "
              "candidates %s, graph replay %s, median of %d\n",
              r.prop.name, r.prop.major, r.prop.minor, cudnn_version, w.network.name.c_str(), w.network.batch,
              precision == "mixed" ? "mixed precisions (per layer below)" : precision.c_str(), w.kernels.size(),
              mib(settings.limit).c_str(), o.policy_text.c_str(), o.candidates_text.c_str(),
              o.graph_replay ? "on" : "off", o.iterations);
  if (precision == "mixed") {
    std::string layers;
    for (const auto& l : w.network.layers) layers += (layers.empty() ? "" : ", ") + l.name + " " + precision_of(l);
    std::printf("layers: %s\n", layers.c_str());
  }
  std::printf("input layer's backward data: %s\n", o.input_gradient
                                                      ? "kept (--input-gradient)"
                                                      : "left out (as in training; --input-gradient keeps it)");
  if (settings.total_workspace > 0) {
    const UcudnnWorkspaceDivisionInfo& division = r.ucudnn().division;
    std::printf("ucudnn in WD mode: total %s, buffer %s, %d variables solved in %.2f ms; the baselines keep %s per "
                "kernel\n",
                o.total_text.c_str(), mib(division.bufferBytes).c_str(), division.variables, division.solveMs,
                mib(settings.limit).c_str());
  }
  std::printf("baselines (ratio = baseline time / ucudnn time; >1: ucudnn faster):\n");
  std::printf("  plain legacy: cuDNN's legacy API as frameworks call it, the fastest cudnnFind* result within %s\n",
              mib(settings.limit).c_str());
  if (const Side* at_limit = r.find(SideKind::kBestAtLimit)) {
    std::printf("  %s: cuDNN's fastest single candidate (legacy algorithm or graph-API engine configuration) on the "
                "whole batch within %s (a ucudnn handle: policy undivided, candidates both, graph replay as ucudnn's)\n",
                at_limit->label.c_str(), mib(settings.limit).c_str());
  }
  if (const Side* unlimited = r.find(SideKind::kBestUnlimited)) {
    std::printf("  %s: the same within %s per kernel (half the device memory free after the network's tensors), "
                "standing for no limit; its kernels' workspaces sum to %s, the largest %s\n",
                unlimited->label.c_str(), mib(unlimited->limit).c_str(), mib(unlimited->workspace_sum()).c_str(),
                mib(unlimited->workspace_max()).c_str());
  }
  if (!settings.all_baselines) std::printf("  (--baselines plain: the best-engine baselines not measured)\n");
  std::printf("per kernel: calls queued ahead, the longer of host and GPU time\n");

  nlohmann::ordered_json json;
  json["gpu"] = r.prop.name;
  json["cudnn_version"] = cudnn_version;
  json["network"] = o.network_name;
  json["batch"] = w.network.batch;
  json["kernel_count"] = w.kernels.size();
  json["input_gradient"] = o.input_gradient;
  json["workspace_limit_bytes"] = settings.limit;
  json["policy"] = o.policy_text;
  json["data_type"] = uniform_type(w.network);
  json["layout"] = uniform_layout(w.network);
  // null where each layer kept its own
  json["data_type_override"] = o.data_type_text.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(o.data_type_text);
  json["layout_override"] = o.layout_text.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(o.layout_text);
  // The float layers' math type; half and bfloat16 layers run tensor-op math.
  const bool any_float = std::any_of(w.network.layers.begin(), w.network.layers.end(),
                                     [](const ucudnn::ConvLayerSpec& l) { return l.data_type == CUDNN_DATA_FLOAT; });
  json["math"] = any_float ? o.math_text : "tensor_op";
  json["total_workspace_bytes"] = settings.total_workspace;
  json["graph_replay"] = o.graph_replay == 1;
  json["candidates"] = o.candidates_text;
  json["baselines"] = o.baselines_text;
  if (const Side* unlimited = r.find(SideKind::kBestUnlimited)) json["unlimited_limit_bytes"] = unlimited->limit;
  if (settings.total_workspace > 0) {
    const UcudnnWorkspaceDivisionInfo& division = r.ucudnn().division;
    json["wd_buffer_bytes"] = division.bufferBytes;
    json["wd_variables"] = division.variables;
    json["wd_solve_ms"] = division.solveMs;
  }
  json["iterations"] = o.iterations;
  return json;
}

// One table row and one JSON entry per kernel: each side's time (and plain cuDNN's algorithm),
// ucudnn's prediction, the ratios of each baseline's time to ucudnn's, ucudnn's workspace and plan.
void report_kernels(const Results& r, const std::vector<Layer>& layers, nlohmann::ordered_json* json) {
  const Side& u = r.ucudnn();
  const auto baselines = r.baselines();
  std::string header;
  char cell[160];
  std::snprintf(cell, sizeof cell, "%-11s %-5s", "layer", "op");
  header += cell;
  for (const Side& side : r.sides) {
    std::snprintf(cell, sizeof cell, " %13s", (side.column + " ms").c_str());
    header += cell + std::string(side.kind == SideKind::kPlain ? "  algo" : "");
  }
  std::snprintf(cell, sizeof cell, " %13s", "predicted ms");
  header += cell;
  for (const Side* b : baselines) {
    std::snprintf(cell, sizeof cell, " %13s", ("vs " + b->column).c_str());
    header += cell;
  }
  std::printf("%s  %10s  %s\n", header.c_str(), "workspace", "ucudnn's plan");
  for (size_t i = 0; i < u.kernels.size(); ++i) {
    const Kernel& uk = u.kernels[i];
    const Layer& l = layers[uk.layer];
    std::snprintf(cell, sizeof cell, "%-11s %-5s", l.spec.name.c_str(), kOpNames[uk.op]);
    std::string row = cell;
    nlohmann::ordered_json entry = {{"layer", l.spec.name},
                                    {"op", kOpNames[uk.op]},
                                    {"data_type", ucudnn::tools::data_type_name(l.spec.data_type)},
                                    {"layout", ucudnn::tools::layout_name(l.spec.layout, l.spec.spatial.size())}};
    for (const Side& side : r.sides) {
      const Kernel& k = side.kernels[i];
      std::snprintf(cell, sizeof cell, " %13.3f", k.time_ms);
      row += cell;
      entry[side.json + "_time_ms"] = k.time_ms;
      entry[side.json + "_workspace_bytes"] = side.workspace_of(k);
      if (side.kind == SideKind::kPlain) {
        std::snprintf(cell, sizeof cell, " %5d", k.algo);
        row += cell;
        entry["cudnn_algo"] = k.algo;
        entry["cudnn_math_type"] = k.math_type;
      } else {
        entry[side.json + "_plan"] = describe_plan(k.plan);
      }
    }
    std::snprintf(cell, sizeof cell, " %13.3f", uk.plan.predictedTimeMs);
    row += cell;
    entry["ucudnn_predicted_ms"] = uk.plan.predictedTimeMs;
    for (const Side* b : baselines) {
      const float ratio = b->kernels[i].time_ms / uk.time_ms;
      std::snprintf(cell, sizeof cell, " %12.2fx", ratio);
      row += cell;
      entry["ratios"][b->json] = ratio;
    }
    std::printf("%s  %10s  %s\n", row.c_str(), mib(u.workspace_of(uk)).c_str(), describe_plan(uk.plan).c_str());
    (*json)["kernels"].push_back(entry);
  }
}

// "plain legacy 33.1 ms | best engine at 8 MiB 20.2 ms | ... | ucudnn 12.0 ms" and the ratios
// "2.76x / 1.68x / 0.83x", from one value per side.
std::string side_by_side(const Results& r, const std::function<float(const Side&)>& value,
                         const std::function<std::string(const Side&)>& suffix) {
  std::string line;
  char cell[96];
  for (const Side& side : r.sides) {
    std::snprintf(cell, sizeof cell, "%s%s %.2f ms", line.empty() ? "" : " | ", side.label.c_str(), value(side));
    line += cell + suffix(side);
  }
  line += ":";
  const float mine = value(r.ucudnn());
  for (const Side* b : r.baselines()) {
    std::snprintf(cell, sizeof cell, "%s %.2fx", b == r.baselines().front() ? "" : " /", value(*b) / mine);
    line += cell;
  }
  return line;
}

// The summary lines, and the JSON object's last fields.
void report_summary(const Results& r, const Options& o, nlohmann::ordered_json* json) {
  const Side& u = r.ucudnn();
  float predicted_sum = 0;
  for (const Kernel& k : u.kernels) predicted_sum += k.plan.predictedTimeMs;
  char predicted[64];
  std::snprintf(predicted, sizeof predicted, " (predicted %.2f ms)", predicted_sum);
  std::printf("sum of kernel medians: %s\n",
              side_by_side(r, [](const Side& s) { return s.kernel_sum(); },
                           [&](const Side& s) { return s.kind == SideKind::kUcudnn ? std::string(predicted) : ""; })
                  .c_str());
  std::printf("sequence (median of %d): %s\n", o.iterations,
              side_by_side(r, [](const Side& s) { return s.sequence_ms; },
                           [](const Side& s) {
                             return s.kind == SideKind::kBestUnlimited
                                        ? " (workspace " + mib(s.workspace_sum()) + " in all)"
                                        : std::string();
                           })
                  .c_str());
  std::string workspace;
  for (const Side& side : r.sides) {
    workspace += (workspace.empty() ? "" : " | ") + side.label + " " + mib(side.workspace_sum()) + ", " +
                 mib(side.workspace_max());
  }
  std::printf("workspace (sum over kernels, largest): %s\n", workspace.c_str());
  std::string planning;
  char cell[160];
  for (const Side& side : r.sides) {
    if (side.kind == SideKind::kPlain) {
      std::snprintf(cell, sizeof cell, "plain legacy (cudnnFind*) %.2f s", side.planning_seconds);
    } else if (side.kind == SideKind::kUcudnn) {
      std::snprintf(cell, sizeof cell, " | ucudnn %.2f s (benchmarking %.2f s, solving %.4f s)", side.planning_seconds,
                    side.benchmark_seconds, side.solve_seconds);
    } else {
      std::snprintf(cell, sizeof cell, " | %s %.2f s", side.label.c_str(), side.planning_seconds);
    }
    planning += cell;
  }
  std::printf("planning (ucudnn planned first, so its time is its own): %s\n", planning.c_str());

  for (const Side& side : r.sides) {
    (*json)[side.json + "_sequence_ms"] = side.sequence_ms;
    (*json)[side.json + "_kernel_sum_ms"] = side.kernel_sum();
    (*json)[side.json + "_workspace_sum_bytes"] = side.workspace_sum();
    (*json)[side.json + "_workspace_max_bytes"] = side.workspace_max();
    if (side.kind == SideKind::kPlain) {
      (*json)["cudnn_find_seconds"] = side.planning_seconds;
    } else {
      (*json)[side.json + "_planning_seconds"] = side.planning_seconds;
    }
  }
  for (const Side* b : r.baselines()) {
    (*json)["sequence_ratios"][b->json] = b->sequence_ms / u.sequence_ms;
    (*json)["kernel_sum_ratios"][b->json] = b->kernel_sum() / u.kernel_sum();
  }
  (*json)["ucudnn_predicted_ms"] = predicted_sum;
  (*json)["ucudnn_benchmark_seconds"] = u.benchmark_seconds;
  (*json)["ucudnn_solve_seconds"] = u.solve_seconds;
}

void write_json(const std::string& path, const nlohmann::ordered_json& json) {
  if (path.empty()) return;
  std::ofstream out(path);
  out << json.dump(2) << "\n";
  if (!out) fail("cannot write " + path);
}

// Plans every side (ucudnn first, so that its planning time is what it costs alone; the others
// then reuse its measurements), then times their kernels and their sequences.
Results measure(const cudaDeviceProp& prop, const std::vector<Layer>& layers, const Workload& w, const Options& o,
                const Settings& settings) {
  Results r;
  r.prop = prop;
  r.sides = make_sides(settings, o);
  ProcessBudget budget;
  budget.set_for(r.sides.back());
  plan_ucudnn(&r.sides.back(), layers, w.kernels);
  for (size_t i = 0; i + 1 < r.sides.size(); ++i) {
    Side& baseline = r.sides[i];
    budget.set_for(baseline);
    if (baseline.kind == SideKind::kPlain) {
      plan_plain(&baseline, layers, w.kernels);
    } else {
      plan_ucudnn(&baseline, layers, w.kernels);
    }
  }
  r.workspace = bind_launches(r.sides, layers);
  for (Side& side : r.sides) {
    budget.set_for(side);
    time_kernels(side, o);
  }
  time_sequences(r.sides, o, budget);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  bench::program_name = "ucudnn_conv_benchmark";
  Options options;
  if (const auto done = parse_options(argc, argv, &options)) return *done;
  const Settings settings = settings_of(options);
  if (options.list_kernels) {
    std::printf("%zu\n", workload_of(options, settings, true).kernels.size());
    return 0;
  }
  const Workload workload = workload_of(options, settings, false);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) fail("no CUDA device");
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "device properties");
  std::vector<Layer> layers = make_layers(workload.network, settings);

  Results results = measure(prop, layers, workload, options, settings);
  nlohmann::ordered_json json = report_header(options, settings, workload, results);
  report_kernels(results, layers, &json);
  report_summary(results, options, &json);
  write_json(options.json_path, json);

  results.workspace.reset();
  destroy_sides(results.sides);
  destroy_layers(layers);
  return 0;
}
