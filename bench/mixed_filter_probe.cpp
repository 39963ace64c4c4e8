// Whether cuDNN has an engine for a half-precision backward filter that writes an FP32 filter
// gradient (x and dy in FP16 or BF16, dw in FP32, FP32 compute): with one, a micro-batch split could
// add each micro-batch into an FP32 accumulator in one call (beta = 1) instead of the two calls and
// two additions of runtime/fp32_filter_sums (issue 62). Prints, for the first layers of AlexNet and
// ResNet-50 (where half-precision plans lose most) at the whole batch and at micro-batches, every
// configuration cuDNN offers for that mixed graph (heuristic modes A, B and the fallback list, knob
// variants and engines compiled at run time included): whether it compiles at run time, the time
// to build its plan (finalize: the compilation), its workspace and the median time of a call
// (CUDA events, 3 warm-ups, 10 timed), beside the best configuration of the all-half graph.
//
//   ucudnn_mixed_filter_probe [--data-type half|bfloat16]

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_support.h"
#include "core/conv_layer.h"
#include "runtime/backend_graph.h"
#include "runtime/descriptors.h"
#include "runtime/device_buffer.h"
#include "runtime/random_fill.h"
#include "tools/networks.h"

namespace {

using ucudnn::ConvKey;
using ucudnn::runtime::CudnnExecutionPlan;
using ucudnn::runtime::DeviceBuffer;

void check_status(const ucudnn::Status& status, const char* what) {
  if (!status.ok()) bench::fail(std::string(what) + ": " + status.message());
}

struct Buffers {
  DeviceBuffer x, w, y, workspace;
};

// x and dy filled with random values of their type, dw (FP32 or half) zeroed.
Buffers make_buffers(const ConvKey& key) {
  using ucudnn::runtime::element_size;
  using ucudnn::runtime::extent_elements;
  Buffers b;
  std::size_t w = 1;
  for (int d : key.w.dims) w *= static_cast<std::size_t>(d);
  const std::size_t x = extent_elements(key.x), y = extent_elements(key.y);
  check_status(b.x.allocate(x * element_size(key.x.data_type)), "x");
  check_status(b.y.allocate(y * element_size(key.y.data_type)), "dy");
  check_status(b.w.allocate(w * element_size(key.w.data_type)), "dw");
  check_status(ucudnn::runtime::fill_random(b.x, key.x.data_type, x, 1), "x values");
  check_status(ucudnn::runtime::fill_random(b.y, key.y.data_type, y, 2), "dy values");
  bench::check(cudaMemset(b.w.get(), 0, b.w.size()), "dw zero");
  return b;
}

struct Timed {
  bool ok = false;
  std::string why;
  double build_ms = 0.0, call_ms = 0.0;
  std::size_t workspace = 0;
};

// Builds configuration `id`'s plan for `key` (beta 1: it adds into dw) and times its calls.
Timed time_config(cudnnHandle_t handle, const ConvKey& key, const std::string& id, Buffers* b) {
  Timed t;
  std::unique_ptr<CudnnExecutionPlan> plan;
  const auto start = std::chrono::steady_clock::now();
  const ucudnn::Status built = CudnnExecutionPlan::build(key, id, 1.0, 1.0, &plan);
  t.build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!built.ok()) {
    t.why = built.message();
    return t;
  }
  t.workspace = plan->workspace_bytes();
  if (b->workspace.size() < t.workspace) check_status(b->workspace.allocate(t.workspace), "workspace");
  const ucudnn::runtime::ConvBuffers buffers{b->x.get(), b->w.get(), b->y.get()};
  cudaEvent_t begin, end;
  bench::check(cudaEventCreate(&begin), "event");
  bench::check(cudaEventCreate(&end), "event");
  std::vector<float> times;
  for (int i = 0; i < 13; ++i) {
    bench::check(cudaEventRecord(begin, nullptr), "record");
    const ucudnn::Status ran = plan->execute(handle, buffers, b->workspace.get(), b->workspace.size());
    bench::check(cudaEventRecord(end, nullptr), "record");
    if (!ran.ok()) {
      t.why = ran.message();
      break;
    }
    bench::check(cudaEventSynchronize(end), "sync");
    float ms = 0.0f;
    bench::check(cudaEventElapsedTime(&ms, begin, end), "elapsed");
    if (i >= 3) times.push_back(ms);
  }
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  if (times.size() == 10) {
    std::nth_element(times.begin(), times.begin() + 5, times.end());
    t.call_ms = times[5];
    t.ok = true;
  }
  return t;
}

void probe(cudnnHandle_t handle, const std::string& name, ConvKey key) {
  ConvKey mixed = key;
  mixed.w.data_type = CUDNN_DATA_FLOAT;
  std::printf("\n%s, batch %d: %s\n", name.c_str(), key.batch(), key.to_string().c_str());
  for (const ConvKey* k : {&key, &mixed}) {
    const bool is_mixed = k == &mixed;
    std::vector<ucudnn::runtime::EngineOffer> offers;
    const ucudnn::Status offered = ucudnn::runtime::offer_engines(*k, ucudnn::KnobSearch::kSweep, &offers);
    const long compiled = std::count_if(offers.begin(), offers.end(), [](const auto& o) { return o.runtime_compiled; });
    std::printf("  %s dw: %zu configurations offered (%ld compiled at run time)%s%s\n", is_mixed ? "FP32" : "half",
                offers.size(), compiled, offered.ok() ? "" : ": ", offered.ok() ? "" : offered.message().c_str());
    Buffers buffers = make_buffers(*k);
    Timed best;
    std::string best_id;
    int built = 0;
    for (const auto& offer : offers) {
      const Timed t = time_config(handle, *k, offer.id, &buffers);
      built += t.ok;
      if (is_mixed) {
        std::printf("    %-40s %s build %8.1f ms  ", offer.id.c_str(), offer.runtime_compiled ? "compiled" : "built   ",
                    t.build_ms);
        if (t.ok) {
          std::printf("workspace %10zu  call %.3f ms\n", t.workspace, t.call_ms);
        } else {
          std::printf("refused: %s\n", t.why.c_str());
        }
      }
      if (t.ok && (best_id.empty() || t.call_ms < best.call_ms)) {
        best = t;
        best_id = offer.id;
      }
    }
    std::printf("  %s dw: %d of %zu ran; fastest %s", is_mixed ? "FP32" : "half", built, offers.size(),
                best_id.empty() ? "none" : best_id.c_str());
    if (!best_id.empty()) std::printf(" at %.3f ms, workspace %zu", best.call_ms, best.workspace);
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  bench::program_name = "ucudnn_mixed_filter_probe";
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a run cut short by a time limit keeps its lines
  int data_type = CUDNN_DATA_HALF;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--data-type") == 0 && i + 1 < argc) {
      const std::string type = argv[++i];
      if (type != "half" && type != "bfloat16") bench::fail("--data-type: half or bfloat16, not " + type);
      data_type = type == "half" ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16;
    } else {
      bench::fail(std::string("unknown argument ") + argv[i] +
                  " (usage: ucudnn_mixed_filter_probe [--data-type "
                  "half|bfloat16])");
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) bench::fail("no CUDA device");
  cudnnHandle_t handle = nullptr;
  bench::check(cudnnCreate(&handle), "cudnnCreate");
  std::printf("cuDNN %zu, %s NHWC backward filter with an FP32 filter gradient\n", cudnnGetVersion(),
              data_type == CUDNN_DATA_HALF ? "FP16" : "BF16");
  for (const char* network_name : {"alexnet", "resnet50"}) {
    auto network = ucudnn::tools::builtin_network(network_name);
    if (!network) bench::fail(network.message());
    const int whole = network->batch;
    for (int batch : {whole, whole / 8}) {
      ucudnn::tools::LayerOverrides overrides;
      overrides.data_type = data_type;
      overrides.layout = ucudnn::Layout::kNhwc;
      overrides.batch = batch;
      ucudnn::tools::Network n = *network;
      if (const auto applied = ucudnn::tools::apply_overrides(overrides, &n); !applied) bench::fail(applied.message());
      const auto key = ucudnn::to_conv_key(n.layers[0], ucudnn::ConvOp::kBackwardFilter);
      if (!key) bench::fail(key.message());
      probe(handle, std::string(network_name) + " " + n.layers[0].name, *key);
    }
  }
  cudnnDestroy(handle);
  return 0;
}
