#pragma once
// The GPU benchmark's report: the table and summary lines on stdout, and the same as JSON.

#include <cuda_runtime_api.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "bench_support.h"
#include "benchmark_layers.h"
#include "benchmark_sides.h"
#include "conv_benchmark_options.h"

namespace bench {

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

/// The header lines of the table, and the JSON object's first fields.
nlohmann::ordered_json report_header(const Options& o, const Settings& settings, const Workload& w, const Results& r);

/// One table row and one JSON entry per kernel: each side's time (and plain cuDNN's algorithm),
/// ucudnn's prediction, the ratios of each baseline's time to ucudnn's, ucudnn's workspace and plan.
void report_kernels(const Results& r, const std::vector<Layer>& layers, nlohmann::ordered_json* json);

/// The summary lines, and the JSON object's last fields.
void report_summary(const Results& r, const Options& o, nlohmann::ordered_json* json);

}  // namespace bench
