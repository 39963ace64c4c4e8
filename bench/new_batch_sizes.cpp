// What a new batch size costs an inference loop on the legacy API: each batch size of a list in
// turn, a network's forward convolutions, one process. Per batch size, side by side:
//   ucudnn       cudnnGetConvolutionForwardAlgorithm_v7 on a UcudnnHandle_t under the limit (its
//                planning: shared powers of two, or a search), the timings it ran, and the
//                forward pass it plans (CUDA events, median of --reps)
//   cuDNN Find   cudnnFindConvolutionForwardAlgorithm on a plain handle (what a framework's
//                benchmark mode pays per new shape), and the forward pass with Find's fastest
//                algorithm within the limit and with its fastest at any workspace
//
//   ucudnn_new_batch_sizes --net alexnet [--data-type half --layout NHWC] --workspace-limit 8MiB
//                          --batches 1-256 [--reps 5] [--json FILE]
//
// Convolutions of one shape that come twice in the network are planned and found once, as a
// framework's caches do, and run each time they come.

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_support.h"
#include "benchmark_layers.h"
#include "core/conv_layer.h"
#include "core/units.h"

namespace {

using bench::check;
using bench::fail;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The median GPU time of `launch` over `reps` runs (one warm-up), in ms.
float median_ms(const std::function<void()>& launch, int reps) {
  cudaEvent_t begin, end;
  check(cudaEventCreate(&begin), "event");
  check(cudaEventCreate(&end), "event");
  launch();
  std::vector<float> times;
  for (int r = 0; r < reps; ++r) {
    check(cudaEventRecord(begin), "record");
    launch();
    check(cudaEventRecord(end), "record");
    check(cudaEventSynchronize(end), "sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, begin, end), "elapsed");
    times.push_back(ms);
  }
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<int> parse_batches(const std::string& text) {
  std::vector<int> batches;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::size_t dash = item.find('-');
    try {
      const int first = std::stoi(item.substr(0, dash));
      const int last = dash == std::string::npos ? first : std::stoi(item.substr(dash + 1));
      if (first < 1 || last < first || last > 65536) throw std::out_of_range(item);
      for (int b = first; b <= last; ++b) batches.push_back(b);
    } catch (const std::exception&) {
      fail("--batches: '" + item + "' is not N or A-B with 1 <= A <= B <= 65536");
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return batches;
}

long long timings_run() {
  UcudnnStatistics s{};
  check(ucudnnGetStatistics(&s), "ucudnnGetStatistics");
  return s.op[0].timings;
}

struct Sides {
  double ucudnn_plan_s = 0, find_s = 0;
  long long ucudnn_timings = 0;
  float ucudnn_ms = 0, find_at_limit_ms = 0, find_unlimited_ms = 0;
  int kernels_planned = 0;
};

}  // namespace

int main(int argc, char** argv) {
  bench::program_name = "ucudnn_new_batch_sizes";
  bench::Options o;
  std::string batches_text = "1-256";
  int reps = 5;
  CLI::App app{"What a new batch size costs an inference loop: ucudnn's planning against cuDNN's Find"};
  app.add_option("--net", o.network_name, "Network (built-in name or JSON file)");
  app.add_option("--data-type", o.data_type_text, "float, half or bfloat16");
  app.add_option("--layout", o.layout_text, "NCHW or NHWC");
  app.add_option("--workspace-limit", o.limit_text, "Per-kernel workspace limit, e.g. 8MiB");
  app.add_option("--policy", o.policy_text, "ucudnn's batch-size policy");
  app.add_option("--batches", batches_text, "Batch sizes in turn: N or A-B, comma-separated");
  app.add_option("--reps", reps, "Timed runs per forward pass (median)")->check(CLI::Range(1, 1000));
  app.add_option("--json", o.json_path, "Write every batch size's figures here");
  CLI11_PARSE(app, argc, argv);
  const bench::Settings settings = bench::settings_of(o);
  const std::vector<int> batches = parse_batches(batches_text);
  const bench::Workload workload = bench::workload_of(o, settings, true);

  UcudnnHandle_t handle;
  check(cudnnCreate(&handle), "cudnnCreate(UcudnnHandle_t)");
  check(ucudnnSetBatchSizePolicy(handle, settings.policy), "policy");
  check(ucudnnSetCandidates(handle, settings.candidates), "candidates");
  check(ucudnnSetDefaultWorkspaceLimit(handle, settings.limit), "limit");
  cudnnHandle_t plain;
  check(cudnnCreate(&plain), "cudnnCreate");

  nlohmann::json rows = nlohmann::json::array();
  std::printf("%6s %10s %8s %10s | %10s %12s %12s\n", "batch", "ucudnn s", "timings", "Find s", "ucudnn ms",
              "Find@limit", "Find any ws");
  for (int batch : batches) {
    ucudnn::tools::Network network = workload.network;
    for (ucudnn::ConvLayerSpec& spec : network.layers) spec.batch = batch;
    std::vector<bench::Layer> layers = bench::make_layers(network, settings);
    // The first layer of each shape stands for the others.
    std::map<std::string, std::size_t> first_of_shape;
    std::vector<std::size_t> shape_of(layers.size());
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const auto key = ucudnn::to_conv_key(layers[i].spec, ucudnn::ConvOp::kForward, 0);
      if (!key) fail(key.message());
      shape_of[i] = first_of_shape.emplace(key->to_string(), i).first->second;
    }
    struct Choice {
      int algo = 0;
      size_t workspace = 0;
      cudnnConvolutionDescriptor_t conv = nullptr;
    };
    std::map<std::size_t, Choice> ucudnn_choice, at_limit, unlimited;
    Sides s;
    const long long timings_before = timings_run();
    for (const auto& [name, i] : first_of_shape) {
      bench::Layer& l = layers[i];
      auto started = std::chrono::steady_clock::now();
      Choice u;
      u.algo = bench::ucudnn_choice(handle, l, 0, &u.workspace);
      u.conv = l.conv;
      s.ucudnn_plan_s += seconds_since(started);
      ucudnn_choice[i] = u;

      started = std::chrono::steady_clock::now();
      cudnnConvolutionFwdAlgoPerf_t perf[16];
      int returned = 0;
      check(cudnnFindConvolutionForwardAlgorithm(plain, l.x, l.w, l.conv, l.y, 16, &returned, perf),
            "cudnnFindConvolutionForwardAlgorithm");
      s.find_s += seconds_since(started);
      bool limited = false, any = false;
      for (int r = 0; r < returned; ++r) {
        if (perf[r].status != CUDNN_STATUS_SUCCESS) continue;
        // Each side owns its descriptor (with Find's math type), even where both pick one algorithm.
        auto choice = [&] { return Choice{perf[r].algo, perf[r].memory, bench::make_conv(l.spec, perf[r].mathType)}; };
        if (!any) unlimited[i] = choice(), any = true;
        if (!limited && perf[r].memory <= settings.limit) at_limit[i] = choice(), limited = true;
      }
      if (!limited) fail("cuDNN's Find offers no algorithm within the limit for " + name);
    }
    s.ucudnn_timings = timings_run() - timings_before;
    s.kernels_planned = static_cast<int>(first_of_shape.size());

    size_t most = 0;
    for (auto* side : {&ucudnn_choice, &at_limit, &unlimited}) {
      for (const auto& [i, c] : *side) most = std::max(most, c.workspace);
    }
    bench::DeviceMemory workspace(most);
    auto pass = [&](auto h, std::map<std::size_t, Choice>& side) {
      std::vector<std::function<void()>> calls;
      for (std::size_t i = 0; i < layers.size(); ++i) {
        const Choice& c = side[shape_of[i]];
        calls.push_back(bench::make_launch(h, layers[i], c.conv, 0, c.algo, workspace.ptr, c.workspace));
      }
      return median_ms([&] { for (auto& call : calls) call(); }, reps);
    };
    s.ucudnn_ms = pass(handle, ucudnn_choice);
    s.find_at_limit_ms = pass(plain, at_limit);
    s.find_unlimited_ms = pass(plain, unlimited);
    for (auto* side : {&at_limit, &unlimited}) {
      for (auto& [i, c] : *side) cudnnDestroyConvolutionDescriptor(c.conv);
    }
    bench::destroy_layers(layers);

    std::printf("%6d %10.4f %8lld %10.4f | %10.3f %12.3f %12.3f\n", batch, s.ucudnn_plan_s, s.ucudnn_timings, s.find_s,
                s.ucudnn_ms, s.find_at_limit_ms, s.find_unlimited_ms);
    std::fflush(stdout);
    rows.push_back({{"batch", batch},
                    {"kernels", s.kernels_planned},
                    {"ucudnn_plan_s", s.ucudnn_plan_s},
                    {"ucudnn_timings", s.ucudnn_timings},
                    {"find_s", s.find_s},
                    {"ucudnn_ms", s.ucudnn_ms},
                    {"find_at_limit_ms", s.find_at_limit_ms},
                    {"find_unlimited_ms", s.find_unlimited_ms}});
  }
  if (!o.json_path.empty()) {
    std::ofstream out(o.json_path);
    out << nlohmann::json{{"network", workload.network.name},
                          {"precision", bench::precision_of(workload.network.layers.front())},
                          {"workspace_limit", settings.limit},
                          {"policy", o.policy_text},
                          {"reps", reps},
                          {"batches", rows}}
               .dump(1)
        << "\n";
    if (!out) fail("cannot write " + o.json_path);
  }
  cudnnDestroy(plain);
  cudnnDestroy(handle);
  return 0;
}
