// Host overhead per convolution call: a tiny convolution that the GPU finishes at once, called in a
// loop, through plain cuDNN and through ucudnn (undivided, a split WR plan, WD), for each of the
// three operations (needs a GPU).
//
// Modes other than "engine" plan with cuDNN's legacy algorithms only; "engine" is an undivided
// plan of graph-API engines (ucudnnSetCandidates), run from its execution plan.
//
// Every mode runs the same convolution on one stream. Plain cuDNN runs the algorithm and math type
// of ucudnn's undivided plan, so that plain and undivided queue the same GPU work. The split mode
// looks for a workspace limit and a batch-size policy under which the planner splits the
// mini-batch (it only splits where that is faster, which a tiny convolution rarely is); where none
// does, it runs the plan as it is and reports "split": false. WD sets the process-wide budget
// around its own loops only (WD replaces WR for every handle while a budget is set).
//
// Timing: per repetition, each mode in turn (plain, undivided, split, wd, plain, ...), so that
// drift affects all alike. One repetition of a mode: --calls calls launched in a loop, the host's
// steady_clock around the launches only, CUDA events around the loop on the stream (the GPU's wall
// time per call), then a stream synchronisation outside the host timing. A second, shorter loop
// queued behind a closed StreamGate gives the GPU's busy time per call (no host in it). The
// medians over repetitions are reported.

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/candidate_kinds.h"
#include "core/units.h"
#include "runtime/owned.h"
#include "runtime/stream_gate.h"
#include "ucudnn/ucudnn.h"
#include "bench_support.h"
#include "command_line.h"
#include "json_output.h"

namespace {

using bench::check;
using bench::DeviceMemory;
using bench::fail;
using bench::kOpNames;
using bench::make_launch;
using bench::ucudnn_choice;
using bench::write_json;
namespace runtime = ucudnn::runtime;

enum Mode { kPlain = 0, kUndivided = 1, kSplit = 2, kWd = 3, kEngine = 4 };
const char* const kModeNames[] = {"plain", "undivided", "split", "wd", "engine"};
constexpr int kOps = 3, kModes = 5;

struct Options {
  std::string data_type = "float", layout = "NCHW", total_text = "64MiB", json_path;
  int batch = 8, channels = 8, size = 8, filters = 8, filter_size = 3, pad = 1;
  int repetitions = 7, calls = 2000, gated_calls = 200, warmup = 100;
};

std::optional<int> parse_options(int argc, char** argv, Options* o) {
  CLI::App app{"Host microseconds per convolution call, plain cuDNN against ucudnn, on a tiny convolution "
               "(needs a GPU)"};
  app.add_option("--data-type", o->data_type, "float or half (half: tensor-op math, FP32 compute)")
      ->check(CLI::IsMember({"float", "half"}));
  app.add_option("--layout", o->layout, "NCHW or NHWC")->check(CLI::IsMember({"NCHW", "NHWC"}));
  app.add_option("--batch", o->batch, "N")->check(CLI::PositiveNumber);
  app.add_option("--channels", o->channels, "C")->check(CLI::PositiveNumber);
  app.add_option("--size", o->size, "H = W")->check(CLI::PositiveNumber);
  app.add_option("--filters", o->filters, "K")->check(CLI::PositiveNumber);
  app.add_option("--filter-size", o->filter_size, "R = S")->check(CLI::PositiveNumber);
  app.add_option("--pad", o->pad, "padding")->check(CLI::NonNegativeNumber);
  app.add_option("--repetitions", o->repetitions, "repetitions of each loop (median)")->check(CLI::PositiveNumber);
  app.add_option("--calls", o->calls, "calls per timed loop")->check(CLI::PositiveNumber);
  app.add_option("--gated-calls", o->gated_calls, "calls per loop queued behind a closed stream (GPU busy time)")
      ->check(CLI::PositiveNumber);
  app.add_option("--warmup", o->warmup, "untimed calls per mode and op before the repetitions")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--total-workspace", o->total_text, "the WD mode's process-wide budget");
  app.add_option("--json", o->json_path, "also write the results as JSON to this file");
  return bench::parse_command_line(&app, argc, argv);
}

// The WD mode's budget, from --total-workspace.
size_t wd_budget(const Options& o) {
  const auto total = ucudnn::parse_total_workspace(o.total_text);
  if (!total) fail("--total-workspace: " + total.message());
  if (*total == 0) fail("--total-workspace must be positive (the WD mode's budget)");
  return *total;
}

// ---- Owned CUDA and cuDNN resources -----------------------------------------------------------

// A new cuDNN object from its create call (cudnnCreate, cudnnCreate*Descriptor); the call's name
// is the error line.
template <typename Raw>
Raw create(cudnnStatus_t (*create_call)(Raw*), const char* name) {
  Raw raw = nullptr;
  check(create_call(&raw), name);
  return raw;
}

// The library's owning descriptor (runtime/owned.h) with one implicit conversion, to the raw
// descriptor, so that cuDNN's calls and bench_support's templates take it as they take a raw one.
template <typename Owner>
struct Descriptor : Owner {
  operator typename Owner::pointer() const { return this->get(); }  // NOLINT(google-explicit-constructor)
};
using OwnedTensor = Descriptor<runtime::TensorDescriptor>;
using OwnedFilter = Descriptor<runtime::FilterDescriptor>;
using OwnedConvolution = Descriptor<runtime::ConvolutionDescriptor>;

// A ucudnn handle on a stream, destroyed with this object (runtime/owned.h's Owned takes pointer
// types; UcudnnHandle_t is a struct around one).
class UcudnnHandle {
 public:
  explicit UcudnnHandle(cudaStream_t stream) {
    check(cudnnCreate(&handle_), "cudnnCreate(UcudnnHandle_t)");
    check(cudnnSetStream(handle_, stream), "cudnnSetStream");
  }
  ~UcudnnHandle() {
    if (handle_ != nullptr) (void)cudnnDestroy(handle_);
  }
  UcudnnHandle(UcudnnHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  UcudnnHandle& operator=(UcudnnHandle&&) = delete;
  UcudnnHandle(const UcudnnHandle&) = delete;
  UcudnnHandle& operator=(const UcudnnHandle&) = delete;

  UcudnnHandle_t get() const { return handle_; }

 private:
  UcudnnHandle_t handle_;
};

// A ucudnn handle on `stream` that plans with `candidates` under `policy`.
UcudnnHandle make_ucudnn_handle(cudaStream_t stream, UcudnnCandidates_t candidates,
                                std::optional<UcudnnBatchSizePolicy_t> policy = std::nullopt) {
  UcudnnHandle h(stream);
  if (policy) check(ucudnnSetBatchSizePolicy(h.get(), *policy), "ucudnnSetBatchSizePolicy");
  check(ucudnnSetCandidates(h.get(), candidates), "ucudnnSetCandidates");
  return h;
}

runtime::CudnnHandle make_plain_handle(cudaStream_t stream) {
  runtime::CudnnHandle plain(create<cudnnHandle_t>(cudnnCreate, "cudnnCreate"));
  check(cudnnSetStream(plain.get(), stream), "cudnnSetStream");
  return plain;
}

runtime::CudaStream make_stream() {
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  return runtime::CudaStream(stream);
}

runtime::CudaEvent make_event() {
  cudaEvent_t event = nullptr;
  check(cudaEventCreate(&event), "cudaEventCreate");
  return runtime::CudaEvent(event);
}

// The first device's properties; fails where there is none.
cudaDeviceProp device_properties() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) fail("no CUDA device");
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  return prop;
}

// ---- The convolution --------------------------------------------------------------------------

// The convolution: descriptors (forward naming: x input, w filter, y output) and device tensors.
struct Conv {
  cudnnDataType_t data_type = CUDNN_DATA_FLOAT;
  cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;
  OwnedTensor x, y;
  OwnedFilter w;
  OwnedConvolution conv;  // ucudnn's handles
  // Plain cuDNN, one per op: the same settings, with the math type of that op's undivided plan.
  std::array<OwnedConvolution, kOps> plain_conv;
  std::unique_ptr<DeviceMemory> x_mem, y_mem, w_mem;
};

OwnedConvolution make_conv_descriptor(const Options& o, cudnnDataType_t data_type) {
  OwnedConvolution conv;
  conv.reset(create(cudnnCreateConvolutionDescriptor, "cudnnCreateConvolutionDescriptor"));
  check(cudnnSetConvolution2dDescriptor(conv, o.pad, o.pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        "cudnnSetConvolution2dDescriptor");
  if (data_type == CUDNN_DATA_HALF) {
    check(cudnnSetConvolutionMathType(conv, CUDNN_TENSOR_OP_MATH), "cudnnSetConvolutionMathType");
  }
  return conv;
}

Conv make_conv(const Options& o) {
  Conv c;
  c.data_type = o.data_type == "half" ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
  c.format = o.layout == "NHWC" ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  const size_t element = c.data_type == CUDNN_DATA_HALF ? 2 : 4;
  c.x.reset(create(cudnnCreateTensorDescriptor, "cudnnCreateTensorDescriptor"));
  c.y.reset(create(cudnnCreateTensorDescriptor, "cudnnCreateTensorDescriptor"));
  c.w.reset(create(cudnnCreateFilterDescriptor, "cudnnCreateFilterDescriptor"));
  check(cudnnSetTensor4dDescriptor(c.x, c.format, c.data_type, o.batch, o.channels, o.size, o.size),
        "cudnnSetTensor4dDescriptor(x)");
  check(cudnnSetFilter4dDescriptor(c.w, c.data_type, c.format, o.filters, o.channels, o.filter_size, o.filter_size),
        "cudnnSetFilter4dDescriptor");
  c.conv = make_conv_descriptor(o, c.data_type);
  for (auto& conv : c.plain_conv) conv = make_conv_descriptor(o, c.data_type);
  int n = 0, k = 0, h = 0, w = 0;
  check(cudnnGetConvolution2dForwardOutputDim(c.conv, c.x, c.w, &n, &k, &h, &w),
        "cudnnGetConvolution2dForwardOutputDim");
  check(cudnnSetTensor4dDescriptor(c.y, c.format, c.data_type, n, k, h, w), "cudnnSetTensor4dDescriptor(y)");
  const size_t x_bytes = size_t(o.batch) * o.channels * o.size * o.size * element,
               y_bytes = size_t(n) * k * h * w * element,
               w_bytes = size_t(o.filters) * o.channels * o.filter_size * o.filter_size * element;
  c.x_mem = std::make_unique<DeviceMemory>(x_bytes);
  c.y_mem = std::make_unique<DeviceMemory>(y_bytes);
  c.w_mem = std::make_unique<DeviceMemory>(w_bytes);
  // Small finite values in both types (0x3c3c3c3c: 0.0115f; 0x3c3c: 1.06 in half); the values do
  // not change the work.
  check(cudaMemset(c.x_mem->ptr, 0x3c, x_bytes), "cudaMemset");
  check(cudaMemset(c.y_mem->ptr, 0x3c, y_bytes), "cudaMemset");
  check(cudaMemset(c.w_mem->ptr, 0x3c, w_bytes), "cudaMemset");
  return c;
}

// Plain cuDNN's workspace for an algorithm.
size_t plain_workspace(cudnnHandle_t h, const Conv& c, int op, int algo) {
  size_t ws = 0;
  if (op == 0) {
    check(cudnnGetConvolutionForwardWorkspaceSize(h, c.x, c.w, c.plain_conv[0], c.y,
                                                  static_cast<cudnnConvolutionFwdAlgo_t>(algo), &ws),
          "cudnnGetConvolutionForwardWorkspaceSize (plain)");
  } else if (op == 1) {
    check(cudnnGetConvolutionBackwardDataWorkspaceSize(h, c.w, c.y, c.plain_conv[1], c.x,
                                                       static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), &ws),
          "cudnnGetConvolutionBackwardDataWorkspaceSize (plain)");
  } else {
    check(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, c.x, c.y, c.plain_conv[2], c.w,
                                                         static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), &ws),
          "cudnnGetConvolutionBackwardFilterWorkspaceSize (plain)");
  }
  return ws;
}

UcudnnPlan plan_of(UcudnnHandle_t h, const Conv& c, int op, size_t limit) {
  UcudnnPlan plan;
  check(ucudnnGetPlan(h, static_cast<UcudnnConvolutionOp_t>(op), c.x, c.w, c.conv, c.y, limit, &plan),
        "ucudnnGetPlan");
  return plan;
}

std::string describe_plan(const UcudnnPlan& plan) {
  std::string out;
  for (const auto& run : plan.runs) {
    if (!out.empty()) out += " + ";
    out += std::to_string(run.count) + "x" + std::to_string(run.size) + " " +
           ucudnn::describe_candidate(ucudnn::candidate_from_columns(run.algo, run.mathType, run.engine)
                                          .in_channel_pieces(run.channelPieces)
                                          .in_input_pieces(run.inputChannelPieces)
                                          .with_padded_channels(run.paddedChannels)) +
           " math " + std::to_string(static_cast<int>(run.mathType));
  }
  return out.empty() ? "(none)" : out;
}

const char* policy_name(UcudnnBatchSizePolicy_t p) {
  return p == UCUDNN_BATCH_SIZE_POLICY_ALL ? "all" : p == UCUDNN_BATCH_SIZE_POLICY_UNDIVIDED ? "undivided" : "powerOfTwo";
}

// One mode of one op, ready to run.
struct Bench {
  std::function<void()> launch;
  std::unique_ptr<DeviceMemory> workspace;
  size_t workspace_bytes = 0;
  int algo = -1;
  int micro_batches = 1;
  std::string plan = "";
  bool virtual_algo = false;  // ucudnn answered its plan (the *_MICRO_BATCHED value)
  // split only
  bool split = false;
  size_t limit = 0;
  UcudnnBatchSizePolicy_t policy = UCUDNN_BATCH_SIZE_POLICY_POWER_OF_TWO;
  // samples, one per repetition
  std::vector<double> host_us, gpu_us, busy_us;
  int gate_timeouts = 0;
};

bool is_virtual(int op, int algo) {
  return op == 0 ? algo == UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED
         : op == 1 ? algo == UCUDNN_CONVOLUTION_BWD_DATA_ALGO_MICRO_BATCHED
                   : algo == UCUDNN_CONVOLUTION_BWD_FILTER_ALGO_MICRO_BATCHED;
}

// A ucudnn mode: get_v7, workspace size, allocation; the plan as ucudnn runs it.
void prepare_ucudnn(UcudnnHandle_t h, const Conv& c, int op, Bench* b) {
  b->algo = ucudnn_choice(h, c, op, &b->workspace_bytes);
  b->virtual_algo = is_virtual(op, b->algo);
  b->workspace = std::make_unique<DeviceMemory>(b->workspace_bytes);
  b->launch = make_launch(h, c, c.conv, op, b->algo, b->workspace->ptr, b->workspace_bytes);
}

void describe(const UcudnnPlan& plan, Bench* b) {
  b->micro_batches = plan.microBatchCount();
  b->plan = describe_plan(plan);
}

// The split mode's handle for one op: the first (limit, policy) under which the planner splits.
// Candidates: the default limit, just below the undivided plan's workspace, then 64 MiB / 4^k
// down to 0; powerOfTwo, then all.
UcudnnHandle make_split_handle(const Conv& c, int op, size_t undivided_workspace, cudaStream_t stream, Bench* b) {
  UcudnnHandle handle = make_ucudnn_handle(stream, UCUDNN_CANDIDATES_LEGACY);
  const UcudnnHandle_t h = handle.get();
  size_t default_limit = 0;
  check(ucudnnGetDefaultWorkspaceLimit(h, &default_limit), "ucudnnGetDefaultWorkspaceLimit");
  std::vector<size_t> limits = {default_limit};
  if (undivided_workspace > 0) limits.push_back(undivided_workspace - 1);
  for (size_t l = size_t{64} << 20; l > 0; l /= 4) limits.push_back(l);
  limits.push_back(0);
  b->split = false;
  b->limit = default_limit;
  b->policy = UCUDNN_BATCH_SIZE_POLICY_POWER_OF_TWO;
  for (UcudnnBatchSizePolicy_t policy : {UCUDNN_BATCH_SIZE_POLICY_POWER_OF_TWO, UCUDNN_BATCH_SIZE_POLICY_ALL}) {
    check(ucudnnSetBatchSizePolicy(h, policy), "ucudnnSetBatchSizePolicy");
    for (size_t limit : limits) {
      if (plan_of(h, c, op, limit).microBatchCount() > 1) {
        b->split = true;
        b->limit = limit;
        b->policy = policy;
        break;
      }
    }
    if (b->split) break;
  }
  check(ucudnnSetBatchSizePolicy(h, b->policy), "ucudnnSetBatchSizePolicy");
  check(ucudnnSetDefaultWorkspaceLimit(h, b->limit), "ucudnnSetDefaultWorkspaceLimit");
  return handle;
}

double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

struct Events {
  runtime::CudaEvent start = make_event(), stop = make_event();
  double elapsed_us() const {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime");
    return 1e3 * ms;
  }
};

// One repetition of one mode: the live loop (host and GPU wall time), then the gated loop (GPU busy).
void run_once(Bench& b, const Options& o, cudaStream_t stream, Events& events) {
  check(cudaEventRecord(events.start.get(), stream), "cudaEventRecord");
  const auto host_start = std::chrono::steady_clock::now();
  for (int i = 0; i < o.calls; ++i) b.launch();
  const auto host_stop = std::chrono::steady_clock::now();
  check(cudaEventRecord(events.stop.get(), stream), "cudaEventRecord");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  b.host_us.push_back(std::chrono::duration<double, std::micro>(host_stop - host_start).count() / o.calls);
  b.gpu_us.push_back(events.elapsed_us() / o.calls);

  runtime::StreamGate gate;
  if (!gate.close(stream)) fail("cudaLaunchHostFunc (cannot hold the stream)");
  check(cudaEventRecord(events.start.get(), stream), "cudaEventRecord");
  for (int i = 0; i < o.gated_calls; ++i) b.launch();
  check(cudaEventRecord(events.stop.get(), stream), "cudaEventRecord");
  gate.open();
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  if (gate.timed_out()) {
    ++b.gate_timeouts;  // the sample includes the host's time: left out
  } else {
    b.busy_us.push_back(events.elapsed_us() / o.gated_calls);
  }
}

void set_budget(size_t bytes) { check(ucudnnSetTotalWorkspaceSize(bytes), "ucudnnSetTotalWorkspaceSize"); }

// ---- The run's phases -------------------------------------------------------------------------

using Benches = std::array<std::array<Bench, kModes>, kOps>;

// Undivided first: its plan names the algorithm (and math type) plain cuDNN runs.
void prepare_undivided_and_plain(UcudnnHandle_t undivided, cudnnHandle_t plain, Conv& c, Benches* benches) {
  for (int op = 0; op < kOps; ++op) {
    Bench& b = (*benches)[op][kUndivided];
    prepare_ucudnn(undivided, c, op, &b);
    const UcudnnPlan plan = plan_of(undivided, c, op, UCUDNN_WORKSPACE_LIMIT_DEFAULT);
    describe(plan, &b);
    if (plan.runs.empty()) fail(std::string(kOpNames[op]) + ": the undivided plan has no runs");
    Bench& p = (*benches)[op][kPlain];
    p.algo = plan.runs[0].algo;
    check(cudnnSetConvolutionMathType(c.plain_conv[op], plan.runs[0].mathType), "cudnnSetConvolutionMathType");
    p.workspace_bytes = plain_workspace(plain, c, op, p.algo);
    p.workspace = std::make_unique<DeviceMemory>(p.workspace_bytes);
    p.plan = "algo " + std::to_string(p.algo) + " math " + std::to_string(static_cast<int>(plan.runs[0].mathType));
  }
}

// Split: one handle per op, since the policy that splits may differ between ops.
std::vector<UcudnnHandle> prepare_split(const Conv& c, cudaStream_t stream, Benches* benches) {
  std::vector<UcudnnHandle> handles;
  for (int op = 0; op < kOps; ++op) {
    Bench& b = (*benches)[op][kSplit];
    handles.push_back(make_split_handle(c, op, (*benches)[op][kUndivided].workspace_bytes, stream, &b));
    prepare_ucudnn(handles.back().get(), c, op, &b);
    describe(plan_of(handles.back().get(), c, op, UCUDNN_WORKSPACE_LIMIT_DEFAULT), &b);
    b.split = b.micro_batches > 1;
  }
  return handles;
}

// WD: the budget set, every op registered by get_v7, one division, then WR again.
UcudnnHandle prepare_wd(const Conv& c, cudaStream_t stream, size_t budget, Benches* benches,
                        UcudnnWorkspaceDivisionInfo* division) {
  set_budget(budget);
  UcudnnHandle wd = make_ucudnn_handle(stream, UCUDNN_CANDIDATES_LEGACY);
  for (int op = 0; op < kOps; ++op) prepare_ucudnn(wd.get(), c, op, &(*benches)[op][kWd]);
  check(ucudnnOptimize(wd.get()), "ucudnnOptimize");
  check(ucudnnGetWorkspaceDivisionInfo(wd.get(), division), "ucudnnGetWorkspaceDivisionInfo");
  for (int op = 0; op < kOps; ++op) {
    describe(plan_of(wd.get(), c, op, UCUDNN_WORKSPACE_LIMIT_DEFAULT), &(*benches)[op][kWd]);
  }
  set_budget(0);
  return wd;
}

// Engine: the undivided plan of the graph API's engines.
UcudnnHandle prepare_engine(const Conv& c, cudaStream_t stream, Benches* benches) {
  UcudnnHandle engine = make_ucudnn_handle(stream, UCUDNN_CANDIDATES_ENGINES, UCUDNN_BATCH_SIZE_POLICY_UNDIVIDED);
  for (int op = 0; op < kOps; ++op) {
    prepare_ucudnn(engine.get(), c, op, &(*benches)[op][kEngine]);
    describe(plan_of(engine.get(), c, op, UCUDNN_WORKSPACE_LIMIT_DEFAULT), &(*benches)[op][kEngine]);
  }
  return engine;
}

// Plain's calls, bound once its workspaces are allocated.
void bind_plain_launches(cudnnHandle_t plain, const Conv& c, Benches* benches) {
  for (int op = 0; op < kOps; ++op) {
    Bench& p = (*benches)[op][kPlain];
    p.launch = make_launch(plain, c, c.plain_conv[op], op, p.algo, p.workspace->ptr, p.workspace_bytes);
  }
}

// Before each of a mode's loops: the WD budget on for WD, off for the others.
void enter(int mode, size_t budget) { set_budget(mode == kWd ? budget : 0); }

// One warm-up convolution each (WD's divides and allocates here), then a warm-up loop.
void warm_up(const Options& o, cudaStream_t stream, size_t budget, Benches* benches) {
  for (int op = 0; op < kOps; ++op) {
    for (int mode = 0; mode < kModes; ++mode) {
      enter(mode, budget);
      (*benches)[op][mode].launch();
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      for (int i = 0; i < o.warmup; ++i) (*benches)[op][mode].launch();
      check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }
  }
}

// Every repetition runs each mode in turn, so that drift affects all alike.
void measure(const Options& o, cudaStream_t stream, size_t budget, Benches* benches) {
  Events events;
  for (int rep = 0; rep < o.repetitions; ++rep) {
    for (int op = 0; op < kOps; ++op) {
      for (int mode = 0; mode < kModes; ++mode) {
        enter(mode, budget);
        run_once((*benches)[op][mode], o, stream, events);
      }
    }
  }
  set_budget(0);
}

// ---- The report -------------------------------------------------------------------------------

void print_header(const Options& o, const cudaDeviceProp& prop, const UcudnnWorkspaceDivisionInfo& division) {
  std::printf(
      "GPU: %s (sm_%d%d), cuDNN %d, %s %s, N=%d C=%d H=W=%d K=%d %dx%d pad %d; median of %d loops of %d calls "
      "(GPU busy: %d calls queued behind a closed stream)\n",
      prop.name, prop.major, prop.minor, static_cast<int>(cudnnGetVersion()), o.data_type.c_str(), o.layout.c_str(),
      o.batch, o.channels, o.size, o.filters, o.filter_size, o.filter_size, o.pad, o.repetitions, o.calls,
      o.gated_calls);
  std::printf("WD: budget %s, buffer %s\n", o.total_text.c_str(),
              ucudnn::format_byte_size(division.bufferBytes).c_str());
}

// The table's plan column: the plan, what the split mode searched, and where ucudnn did not plan.
std::string plan_column(int mode, const Bench& b) {
  std::string plan = b.plan;
  if (mode == kSplit) {
    plan += std::string(b.split ? "" : " (no split found)") + ", limit " + ucudnn::format_byte_size(b.limit) + ", " +
            policy_name(b.policy);
  }
  if (mode != kPlain && !b.virtual_algo) plan += " [get_v7 answered a real algorithm: plain cuDNN ran]";
  return plan;
}

void print_table(const Benches& benches) {
  std::printf("%-5s %-10s %10s %10s %10s %6s %12s  %s\n", "op", "mode", "host us", "gpu us", "busy us", "micro",
              "ucudnn adds", "plan");
  for (int op = 0; op < kOps; ++op) {
    const double plain_host = median(benches[op][kPlain].host_us);
    for (int mode = 0; mode < kModes; ++mode) {
      const Bench& b = benches[op][mode];
      const double host = median(b.host_us), gpu = median(b.gpu_us), busy = median(b.busy_us);
      char adds[32] = "";
      if (mode != kPlain) std::snprintf(adds, sizeof adds, "%+.2f us", host - plain_host);
      std::printf("%-5s %-10s %10.2f %10.2f %10.2f %6d %12s  %s\n", kOpNames[op], kModeNames[mode], host, gpu, busy,
                  b.micro_batches, adds, plan_column(mode, b).c_str());
    }
  }
}

void print_summary(const Benches& benches) {
  for (int op = 0; op < kOps; ++op) {
    std::printf(
        "%-5s ucudnn adds %.2f us (undivided), %.2f us (split, %d micro-batches), %.2f us (wd) per call over "
        "plain's %.2f us\n",
        kOpNames[op], median(benches[op][kUndivided].host_us) - median(benches[op][kPlain].host_us),
        median(benches[op][kSplit].host_us) - median(benches[op][kPlain].host_us), benches[op][kSplit].micro_batches,
        median(benches[op][kWd].host_us) - median(benches[op][kPlain].host_us), median(benches[op][kPlain].host_us));
  }
}

void warn_about_gate_timeouts(const Benches& benches) {
  for (int op = 0; op < kOps; ++op) {
    for (int mode = 0; mode < kModes; ++mode) {
      if (benches[op][mode].gate_timeouts) {
        std::fprintf(stderr, "ucudnn_call_overhead: warning: %s %s: %d gated loops timed out (left out of busy us)\n",
                     kOpNames[op], kModeNames[mode], benches[op][mode].gate_timeouts);
      }
    }
  }
}

nlohmann::ordered_json to_json(const Options& o, const cudaDeviceProp& prop, size_t budget,
                               const UcudnnWorkspaceDivisionInfo& division, const Benches& benches) {
  nlohmann::ordered_json json;
  json["gpu"] = prop.name;
  json["cudnn_version"] = static_cast<int>(cudnnGetVersion());
  json["data_type"] = o.data_type;
  json["layout"] = o.layout;
  json["shape"] = {{"n", o.batch}, {"c", o.channels}, {"h", o.size}, {"w", o.size}, {"k", o.filters},
                   {"r", o.filter_size}, {"s", o.filter_size}, {"pad", o.pad}};
  json["repetitions"] = o.repetitions;
  json["calls"] = o.calls;
  json["gated_calls"] = o.gated_calls;
  json["wd_budget_bytes"] = budget;
  json["wd_buffer_bytes"] = division.bufferBytes;
  for (int op = 0; op < kOps; ++op) {
    const double plain_host = median(benches[op][kPlain].host_us);
    nlohmann::ordered_json op_json;
    for (int mode = 0; mode < kModes; ++mode) {
      const Bench& b = benches[op][mode];
      const double host = median(b.host_us);
      nlohmann::ordered_json m;
      m["host_us_per_call"] = host;
      m["gpu_us_per_call"] = median(b.gpu_us);
      m["gpu_busy_us_per_call"] = median(b.busy_us);  // -1: every gated sample timed out
      m["micro_batches"] = b.micro_batches;
      if (mode != kPlain) m["adds_us_per_call"] = host - plain_host;
      m["plan"] = b.plan;
      m["workspace_bytes"] = b.workspace_bytes;
      if (mode == kPlain) m["algo"] = b.algo;
      if (mode != kPlain) m["planned"] = b.virtual_algo;
      if (mode == kSplit) {
        m["split"] = b.split;
        m["workspace_limit_bytes"] = b.limit;
        m["policy"] = policy_name(b.policy);
      }
      m["host_us_samples"] = b.host_us;
      m["gpu_us_samples"] = b.gpu_us;
      if (b.gate_timeouts) m["gate_timeouts"] = b.gate_timeouts;
      op_json[kModeNames[mode]] = m;
    }
    json["ops"][kOpNames[op]] = op_json;
  }
  return json;
}

}  // namespace

int main(int argc, char** argv) {
  bench::program_name = "ucudnn_call_overhead";
  Options o;
  if (const auto done = parse_options(argc, argv, &o)) return *done;
  const size_t budget = wd_budget(o);
  const cudaDeviceProp prop = device_properties();

  // Declared in the order they are made, which matters: the first ucudnn handle applies
  // UCUDNN_TOTAL_WORKSPACE_SIZE, which the set_budget(0) after it overrides.
  const runtime::CudaStream stream = make_stream();
  const runtime::CudnnHandle plain = make_plain_handle(stream.get());
  const UcudnnHandle undivided =
      make_ucudnn_handle(stream.get(), UCUDNN_CANDIDATES_LEGACY, UCUDNN_BATCH_SIZE_POLICY_UNDIVIDED);
  set_budget(0);  // WR for everything but the WD mode, whatever UCUDNN_TOTAL_WORKSPACE_SIZE says
  Conv c = make_conv(o);

  Benches benches;
  prepare_undivided_and_plain(undivided.get(), plain.get(), c, &benches);
  const std::vector<UcudnnHandle> split_handles = prepare_split(c, stream.get(), &benches);
  UcudnnWorkspaceDivisionInfo division{};
  const UcudnnHandle wd = prepare_wd(c, stream.get(), budget, &benches, &division);
  const UcudnnHandle engine = prepare_engine(c, stream.get(), &benches);
  bind_plain_launches(plain.get(), c, &benches);

  warm_up(o, stream.get(), budget, &benches);
  measure(o, stream.get(), budget, &benches);

  print_header(o, prop, division);
  print_table(benches);
  print_summary(benches);
  warn_about_gate_timeouts(benches);
  write_json(o.json_path, to_json(o, prop, budget, division, benches));
  return 0;
}
