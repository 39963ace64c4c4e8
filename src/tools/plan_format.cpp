#include "tools/plan_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>
#include <vector>

#include "core/candidate_kinds.h"
#include "core/units.h"

namespace ucudnn::tools {
namespace {

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string speedup(double undivided_ms, double planned_ms) {
  if (planned_ms <= 0.0) return "-";  // a table may record 0 ms; no ratio to show
  return fixed(undivided_ms / planned_ms, 2) + "x";
}

// A baseline that may be missing (no algorithm within WD's equal share) as a table reads it: NaN
// for none, printed "-" with its ratio.
double or_nan(const std::optional<double>& ms) { return ms.value_or(std::nan("")); }
std::string optional_ms(double ms) { return std::isnan(ms) ? "-" : fixed(ms, 3); }
std::string optional_speedup(double undivided_ms, double planned_ms) {
  return std::isnan(undivided_ms) ? "-" : speedup(undivided_ms, planned_ms);
}

// "WR plan of alexnet" where a network chose the kernels.
std::string title(const char* mode, const PlanOrigin& origin) {
  return std::string(mode) + " plan" + (origin.network.empty() ? "" : " of " + origin.network);
}

// " (UCUDNN_DEFAULT_WORKSPACE_LIMIT)" where a setting, not an option, gave the size.
std::string from_setting(const PlanOrigin& origin) {
  return origin.limit_origin.empty() ? "" : " (" + origin.limit_origin + ")";
}

// Sums of the table's times carry binary noise (21.200000000000003); a picosecond is far below
// any measurement, so round there before handing numbers to JSON.
double json_ms(double ms) { return std::round(ms * 1e6) / 1e6; }

struct Column {
  const char* title;
  bool right_aligned;
};

const std::vector<Column> kWrColumns = {
    {"layer", false},    {"op", false},      {"batch", true},    {"undivided ms", true},
    {"planned ms", true}, {"speedup", true}, {"workspace", true}, {"micro-batches", false},
};

const std::vector<Column> kParetoColumns = {
    {"workspace", true}, {"time ms", true}, {"micro-batches", false},
};

// WR's columns and, before the micro-batches, how many configurations the kernel offered.
const std::vector<Column> kWdColumns = {
    {"layer", false},  {"op", false},       {"batch", true},   {"undivided ms", true},   {"planned ms", true},
    {"speedup", true}, {"workspace", true}, {"configs", true}, {"micro-batches", false},
};

using Row = std::vector<std::string>;

// The header row and then `rows`, each column as wide as its widest cell; ends with a newline.
std::string format_rows(const std::vector<Column>& columns, const std::vector<Row>& rows) {
  std::vector<Row> all;
  Row header;
  for (const auto& column : columns) header.push_back(column.title);
  all.push_back(header);
  all.insert(all.end(), rows.begin(), rows.end());

  std::vector<std::size_t> widths(columns.size(), 0);
  for (const auto& row : all) {
    for (std::size_t c = 0; c < columns.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string text;
  for (const auto& row : all) {
    std::string line;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (c > 0) line += "  ";
      const std::string pad(widths[c] - row[c].size(), ' ');
      line += columns[c].right_aligned ? pad + row[c] : row[c] + pad;
    }
    line.erase(line.find_last_not_of(' ') + 1);  // the last column is left-aligned
    text += line + '\n';
  }
  return text;
}

// A numbered kind's candidate (a legacy algorithm) by cuDNN's name for it, another by its id.
std::string candidate_name(ConvOp op, const Candidate& candidate) {
  const CandidateKindInfo& kind = kind_info(candidate.kind);
  return kind.numbered ? algo_name(op, candidate.algorithm) : kind.describe(candidate);
}

// The candidate's columns as a JSON entry's "algo" and, for a kind that has one, "engine": an
// engine has algo -1 and its id under "engine" after "algo".
void add_candidate(const Candidate& candidate, nlohmann::ordered_json* entry) {
  (*entry)["algo"] = candidate.algorithm;
  if (candidate.kind != CandidateKind::kLegacy) (*entry)["engine"] = candidate.engine_id;
}

// {"size","algo","count"}, with "engine" after "algo" for an engine run.
nlohmann::ordered_json micro_batches_to_json(const MicroBatchSplit& plan) {
  nlohmann::ordered_json micro_batches = nlohmann::ordered_json::array();
  for (const auto& run : plan.runs) {
    nlohmann::ordered_json entry;
    entry["size"] = run.size();
    add_candidate(run.candidate(), &entry);
    entry["count"] = run.count;
    micro_batches.push_back(std::move(entry));
  }
  return micro_batches;
}

// A JSON number of milliseconds, or null where there is none.
nlohmann::ordered_json optional_json_ms(const std::optional<double>& ms) {
  return ms ? nlohmann::ordered_json(json_ms(*ms)) : nlohmann::ordered_json(nullptr);
}

// A kernel of a JSON plan; the undivided time follows the planned time (null where WD's share
// fits no algorithm at the full batch).
nlohmann::ordered_json kernel_to_json(const std::string& layer, ConvOp op, int batch, const MicroBatchSplit& plan,
                                      std::optional<double> undivided_ms) {
  nlohmann::ordered_json kernel;
  kernel["layer"] = layer;
  kernel["op"] = short_name(op);
  kernel["batch"] = batch;
  kernel["time_ms"] = json_ms(plan.time_ms);
  kernel["undivided_time_ms"] = optional_json_ms(undivided_ms);
  kernel["workspace_bytes"] = plan.workspace_bytes;
  kernel["micro_batches"] = micro_batches_to_json(plan);
  return kernel;
}

}  // namespace

std::string describe_micro_batches(ConvOp op, const MicroBatchSplit& plan) {
  std::string text;
  for (const auto& run : plan.runs) {
    if (!text.empty()) text += " + ";
    text += std::to_string(run.count) + " x " + std::to_string(run.size()) + " " + candidate_name(op, run.candidate());
  }
  return text;
}

std::string format_plan_table(const WrReport& report) {
  std::vector<Row> rows;
  for (const auto& k : report.kernels) {
    rows.push_back({k.layer, short_name(k.op), std::to_string(k.batch),
                    fixed(k.undivided.cost_ms(), 3), fixed(k.plan.time_ms, 3),
                    speedup(k.undivided.cost_ms(), k.plan.time_ms),
                    format_byte_size(k.plan.workspace_bytes),
                    describe_micro_batches(k.op, k.plan)});
  }
  const double undivided = report.undivided_total_time_ms();
  const double planned = report.total_time_ms();
  rows.push_back({"total", "", "", fixed(undivided, 3), fixed(planned, 3),
                  speedup(undivided, planned), "", ""});

  std::ostringstream out;
  out << title("WR", report.origin) << ", policy " << to_string(report.policy) << ", workspace limit "
      << format_byte_size(report.workspace_limit) << " per kernel" << from_setting(report.origin) << ", "
      << report.kernels.size() << " kernels\n";
  out << format_rows(kWrColumns, rows);
  return out.str();
}

std::string format_wd_table(const WdReport& report) {
  std::vector<Row> rows;
  for (const auto& k : report.kernels) {
    const double undivided = k.undivided ? k.undivided->cost_ms() : std::nan("");
    rows.push_back({k.layer, short_name(k.op), std::to_string(k.batch), optional_ms(undivided),
                    fixed(k.plan.time_ms, 3), optional_speedup(undivided, k.plan.time_ms),
                    format_byte_size(k.plan.workspace_bytes), std::to_string(k.desirable_configurations),
                    describe_micro_batches(k.op, k.plan)});
  }
  const double undivided = or_nan(report.undivided_total_time_ms());
  rows.push_back({"total", "", "", optional_ms(undivided), fixed(report.time_ms, 3),
                  optional_speedup(undivided, report.time_ms), format_byte_size(report.workspace_used), "", ""});

  std::ostringstream out;
  out << title("WD", report.origin) << ", policy " << to_string(report.policy) << ", total workspace "
      << format_byte_size(report.total_workspace) << from_setting(report.origin) << ", " << report.kernels.size()
      << " kernels\n";
  out << "undivided: each kernel's whole batch in one call within an equal share of the budget, "
      << format_byte_size(report.undivided_share) << " (plain cuDNN with the same memory)\n";
  out << format_rows(kWdColumns, rows);
  out << "workspace used " << format_byte_size(report.workspace_used) << " of "
      << format_byte_size(report.total_workspace) << "; " << report.variables
      << " variables, solved in " << fixed(report.solve_ms, 3) << " ms\n";
  if (!report.optimal) {
    out << "not proven optimal: the time limit stopped the search; the plan is the best found, within "
        << fixed(report.gap * 100.0, 2) << "% of the optimum\n";
  }
  return out.str();
}

nlohmann::ordered_json plan_to_json(const WrReport& report) {
  nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
  for (const auto& k : report.kernels) {
    kernels.push_back(kernel_to_json(k.layer, k.op, k.batch, k.plan, k.undivided.cost_ms()));
  }
  nlohmann::ordered_json json;
  json["mode"] = "wr";
  json["policy"] = to_string(report.policy);
  json["kernels"] = std::move(kernels);
  json["total_time_ms"] = json_ms(report.total_time_ms());
  json["undivided_total_time_ms"] = json_ms(report.undivided_total_time_ms());
  return json;
}

nlohmann::ordered_json wd_plan_to_json(const WdReport& report) {
  nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
  for (const auto& k : report.kernels) {
    nlohmann::ordered_json kernel = kernel_to_json(
        k.layer, k.op, k.batch, k.plan, k.undivided ? std::optional<double>(k.undivided->cost_ms()) : std::nullopt);
    kernel["desirable_configurations"] = k.desirable_configurations;
    kernels.push_back(std::move(kernel));
  }
  nlohmann::ordered_json json;
  json["mode"] = "wd";
  json["policy"] = to_string(report.policy);
  json["total_workspace_bytes"] = report.total_workspace;
  json["undivided_workspace_bytes"] = report.undivided_share;
  json["kernels"] = std::move(kernels);
  json["total_time_ms"] = json_ms(report.time_ms);
  json["undivided_total_time_ms"] = optional_json_ms(report.undivided_total_time_ms());
  json["workspace_used_bytes"] = report.workspace_used;
  json["variables"] = report.variables;
  json["solve_ms"] = json_ms(report.solve_ms);
  json["optimal"] = report.optimal;
  json["gap"] = report.gap;
  return json;
}

std::string format_pareto_table(const ParetoReport& report) {
  std::vector<Row> rows;
  for (const auto& plan : report.front) {
    rows.push_back({format_byte_size(plan.workspace_bytes), fixed(plan.time_ms, 3),
                    describe_micro_batches(report.op, plan)});
  }
  std::ostringstream out;
  out << "desirable configurations of " << report.layer << ":" << short_name(report.op) << " (batch " << report.batch
      << ", policy " << to_string(report.policy) << "): " << report.front.size() << "\n";
  out << format_rows(kParetoColumns, rows);
  return out.str();
}

nlohmann::ordered_json pareto_to_json(const ParetoReport& report) {
  nlohmann::ordered_json front = nlohmann::ordered_json::array();
  for (const auto& plan : report.front) {
    nlohmann::ordered_json entry;
    entry["time_ms"] = json_ms(plan.time_ms);
    entry["workspace_bytes"] = plan.workspace_bytes;
    entry["micro_batches"] = micro_batches_to_json(plan);
    entry["description"] = describe_micro_batches(report.op, plan);
    front.push_back(std::move(entry));
  }
  nlohmann::ordered_json undivided = nlohmann::ordered_json::array();
  for (const auto& m : report.undivided) {
    nlohmann::ordered_json entry;
    add_candidate(m.candidate, &entry);
    entry["algo_name"] = candidate_name(report.op, m.candidate);
    entry["time_ms"] = json_ms(m.cost_ms());
    if (m.host_ms > 0) {
      entry["gpu_ms"] = json_ms(m.time_ms);
      entry["host_ms"] = json_ms(m.host_ms);
    }
    entry["workspace_bytes"] = m.workspace_bytes;
    undivided.push_back(std::move(entry));
  }
  nlohmann::ordered_json json;
  json["mode"] = "pareto";
  json["layer"] = report.layer;
  json["op"] = short_name(report.op);
  json["batch"] = report.batch;
  json["policy"] = to_string(report.policy);
  json["front"] = std::move(front);
  json["undivided"] = std::move(undivided);
  return json;
}

}  // namespace ucudnn::tools
