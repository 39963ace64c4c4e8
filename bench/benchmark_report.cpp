// The GPU benchmark's report: the header, one row per kernel, and the summary, printed and as JSON.
#include "benchmark_report.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>

#include "benchmark_planning.h"

#include "core/candidate_kinds.h"
#include "core/units.h"

namespace bench {
namespace {

std::string describe_plan(const UcudnnPlan& plan) {
  std::string out;
  for (const auto& run : plan.runs) {
    if (!out.empty()) out += " + ";
    out += std::to_string(run.count) + " x " + std::to_string(run.size) + " " +
           ucudnn::describe_candidate(ucudnn::candidate_from_columns(run.algo, run.mathType, run.engine)
                                          .in_channel_pieces(run.channelPieces)
                                          .in_input_pieces(run.inputChannelPieces)
                                          .with_padded_channels(run.paddedChannels));
  }
  return plan.sumsInFp32 ? out + ", summed in FP32" : out;
}

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

}  // namespace

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

namespace {

// Where a search's time went (ucudnnGetSearchStatistics), as JSON.
nlohmann::ordered_json search_json(const UcudnnSearchPhases& s, double planning_seconds) {
  return {{"planning_seconds", planning_seconds},
          {"setup_seconds", s.setupSeconds},
          {"heuristics_seconds", s.heuristicsSeconds},
          {"find_seconds", s.findSeconds},
          {"plan_build_seconds", s.planBuildSeconds},
          {"timing_seconds", s.timingSeconds},
          {"database_seconds", s.databaseSeconds},
          {"plans_built", s.plansBuilt},
          {"timed_in_full", s.timedInFull},
          {"cut_short", s.cutShort},
          {"not_timed", s.notTimed},
          {"sizes_measured", s.sizesMeasured},
          {"sizes_skipped", s.sizesSkipped}};
}

UcudnnSearchPhases search_sum(const Side& side) {
  UcudnnSearchPhases total{};
  for (const Kernel& k : side.kernels) accumulate_search(&total, k.search, 1);
  return total;
}

}  // namespace

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
    entry["ucudnn_search"] = search_json(uk.search, uk.planning_seconds);
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
  const UcudnnSearchPhases searched = search_sum(u);
  std::printf("ucudnn's search (%s): setup %.2f s, heuristics %.2f s, Find %.2f s, plan builds %.2f s, timing %.2f s, "
              "database %.2f s; %lld candidates timed in full, %lld cut short, %lld not timed; %lld sizes measured, "
              "%lld skipped\n",
              o.search_text.c_str(), searched.setupSeconds, searched.heuristicsSeconds, searched.findSeconds,
              searched.planBuildSeconds, searched.timingSeconds, searched.databaseSeconds, searched.timedInFull,
              searched.cutShort, searched.notTimed, searched.sizesMeasured, searched.sizesSkipped);
  (*json)["search"] = o.search_text;
  (*json)["ucudnn_search"] = search_json(searched, u.planning_seconds);

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

}  // namespace bench
