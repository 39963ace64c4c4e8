#pragma once
// How `ucudnn plan` prints a PlanReport: an aligned table for people, JSON for scripts.

#include <string>

#include <nlohmann/json.hpp>

#include "tools/plan_report.h"

namespace ucudnn {

/// "8 x 32 IMPLICIT_PRECOMP_GEMM + 1 x 16 IMPLICIT_GEMM": count x size algorithm, per run.
std::string describe_micro_batches(ConvOp op, const WrPlan& plan);

/// One row per kernel (layer, op, batch, undivided and planned ms, speedup, workspace,
/// micro-batches), then a totals row; columns aligned, ends with a newline.
std::string format_plan_table(const PlanReport& report);

/// {"mode":"wr","policy":...,"kernels":[...],"total_time_ms":...,"undivided_total_time_ms":...}
nlohmann::ordered_json plan_to_json(const PlanReport& report);

}  // namespace ucudnn
