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

#include <cuda_runtime_api.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "bench_support.h"
#include "benchmark_layers.h"
#include "benchmark_planning.h"
#include "benchmark_report.h"
#include "benchmark_sides.h"
#include "benchmark_timing.h"
#include "conv_benchmark_options.h"
#include "json_output.h"

namespace {

using bench::check;
using bench::fail;
using bench::Layer;
using bench::Options;
using bench::ProcessBudget;
using bench::Results;
using bench::Settings;
using bench::Side;
using bench::SideKind;
using bench::Workload;
using bench::write_json;

// Plans every side (ucudnn first, so that its planning time is what it costs alone; the others
// then reuse its measurements), then times their kernels and their sequences.
Results measure(const cudaDeviceProp& prop, const std::vector<Layer>& layers, const Workload& w, const Options& o,
                const Settings& settings) {
  Results r;
  r.prop = prop;
  r.sides = make_sides(settings, o);
  ProcessBudget budget;
  check(ucudnnSetSearchMode(settings.search), "search mode");
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
