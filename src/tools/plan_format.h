#pragma once
// How `ucudnn plan` prints a WrReport (WR) or a WdReport (WD): an aligned table for people,
// JSON for scripts.

#include <string>

#include <nlohmann/json.hpp>

#include "tools/plan_report.h"

namespace ucudnn::tools {
using ucudnn::optimize::MicroBatchSplit;


/// "8 x 32 IMPLICIT_PRECOMP_GEMM + 1 x 16 eng12:k3=1": count x size candidate, per run (a legacy
/// algorithm by its cuDNN name, an engine configuration by its id). In JSON an engine run is
/// {"size", "algo": -1, "engine": ID, "count"}, a legacy run {"size", "algo", "count"}.
std::string describe_micro_batches(ConvOp op, const MicroBatchSplit& plan);

/// One row per kernel (layer, op, batch, undivided and planned ms, speedup, workspace,
/// micro-batches), then a totals row; columns aligned, ends with a newline.
std::string format_plan_table(const WrReport& report);

/// {"mode":"wr","policy":...,"kernels":[...],"total_time_ms":...,"undivided_total_time_ms":...}
nlohmann::ordered_json plan_to_json(const WrReport& report);

/// A line saying what the undivided baseline is, then one row per kernel (layer, op, batch,
/// undivided and planned ms, speedup, workspace, desirable configurations, micro-batches; "-" for
/// a baseline that has no algorithm within its share), a totals row, then the budget used,
/// variables and solve time.
std::string format_wd_table(const WdReport& report);

/// {"mode":"wd","policy":...,"total_workspace_bytes":...,"undivided_workspace_bytes":...,
///  "kernels":[...],"total_time_ms":...,"undivided_total_time_ms":...,"workspace_used_bytes":...,
///  "variables":...,"solve_ms":...,"optimal":...,"gap":...}; an undivided time is null where no
///  algorithm fits the share.
nlohmann::ordered_json wd_plan_to_json(const WdReport& report);

/// One row per desirable configuration (workspace, time, micro-batches) of one kernel.
std::string format_pareto_table(const ParetoReport& report);

/// {"mode":"pareto","layer":...,"op":...,"batch":...,"policy":...,"front":[...],"undivided":[...]}
nlohmann::ordered_json pareto_to_json(const ParetoReport& report);

}  // namespace ucudnn::tools
