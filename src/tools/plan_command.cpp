#include "tools/plan_command.h"

#include <cctype>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/batch_policy.h"
#include "core/candidate_kinds.h"
#include "core/env_config.h"
#include "core/measurement_csv.h"
#include "core/units.h"
#include "tools/cli_options.h"
#include "tools/plan_format.h"
#include "tools/plan_report.h"

namespace ucudnn::tools {
namespace {

struct PlanOptions {
  std::string measurements;
  std::string workspace_limit;
  std::string total_workspace;
  std::string pareto;
  std::string policy = "powerOfTwo";
  std::string candidates = "both";
  std::string time_limit;
  bool json = false;
  // Whether each mode's option was given at all: an empty value is given, and wrong.
  const CLI::Option* workspace_limit_option = nullptr;
  const CLI::Option* total_workspace_option = nullptr;
  const CLI::Option* pareto_option = nullptr;
};

// Reads the table and keeps the rows of the candidates asked for; anything but a readable regular
// file is a data error (read_measurements_csv says which).
Expected<std::vector<KernelMeasurements>> read_table(const std::string& path, CandidateSet candidates) {
  UCUDNN_TRY_ASSIGN(auto kernels, read_measurements_csv(path));
  return rows_of_candidates(std::move(kernels), candidates);
}

// The options every mode shares, checked before the table is read: usage errors come first.
struct Shared {
  BatchSizePolicy policy;
  CandidateSet candidates;
};

Expected<Shared> shared_options(const PlanOptions& options) {
  const auto policy = parse_batch_size_policy(options.policy);
  if (!policy) return policy.error().prefixed("--policy: ");
  const auto candidates = parse_candidate_set(options.candidates);
  if (!candidates) return candidates.error().prefixed("--candidates: ");
  return Shared{*policy, *candidates};
}

// Prints a finished report as one JSON line or as a table. Nothing reaches `out` until the whole
// report exists, so a failure leaves no partial output.
template <typename Report>
int print_report(const Report& report, bool json, nlohmann::ordered_json (*to_json)(const Report&),
                 std::string (*to_table)(const Report&), std::ostream& out) {
  if (json) {
    out << to_json(report).dump() << '\n';
  } else {
    out << to_table(report);
  }
  return kExitOk;
}

// The table a mode plans from, read once every option is checked: usage errors (exit 2, `mode`'s
// own options first) come before anything the file holds (data errors, exit 1).
int with_table(const PlanOptions& options, const Status& mode, std::ostream& err,
               const std::function<int(const std::vector<KernelMeasurements>&, BatchSizePolicy)>& plan) {
  if (!mode) return report_error(err, kExitUsageError, mode.message());
  const auto shared = shared_options(options);
  if (!shared) return report_error(err, kExitUsageError, shared.message());
  const auto kernels = read_table(options.measurements, shared->candidates);
  if (!kernels) return report_error(err, kExitDataError, kernels.message());
  return plan(*kernels, shared->policy);
}

int run_reuse(const PlanOptions& options, std::ostream& out, std::ostream& err) {
  const auto limit = parse_byte_size(options.workspace_limit);
  const Status mode = limit ? Status::success() : limit.error().prefixed("--workspace-limit: ");
  return with_table(options, mode, err, [&](const auto& kernels, BatchSizePolicy policy) {
    const auto report = plan_workspace_reuse(kernels, policy, *limit);
    if (!report) return report_error(err, kExitDataError, report.message());
    return print_report(*report, options.json, plan_to_json, format_plan_table, out);
  });
}

Status division_options(const PlanOptions& options, std::size_t* budget, double* time_limit) {
  const auto total = parse_total_workspace(options.total_workspace);
  if (!total) return total.error().prefixed("--total-workspace: ");
  *budget = *total;
  *time_limit = process_settings().wd_time_limit_seconds;  // UCUDNN_WD_TIME_LIMIT, unless the option says
  if (options.time_limit.empty()) return Status::success();
  const auto parsed = parse_time_limit_seconds(options.time_limit);
  if (!parsed) return parsed.error().prefixed("--time-limit: ");
  *time_limit = *parsed;
  return Status::success();
}

int run_division(const PlanOptions& options, std::ostream& out, std::ostream& err) {
  std::size_t budget = 0;
  double time_limit = 0.0;
  const Status mode = division_options(options, &budget, &time_limit);
  return with_table(options, mode, err, [&](const auto& kernels, BatchSizePolicy policy) {
    const auto report = plan_workspace_division(kernels, policy, budget, time_limit);
    if (!report) return report_error(err, kExitDataError, report.message());
    return print_report(*report, options.json, wd_plan_to_json, format_wd_table, out);
  });
}

int run_pareto(const PlanOptions& options, std::ostream& out, std::ostream& err) {
  return with_table(options, Status::success(), err, [&](const auto& kernels, BatchSizePolicy policy) {
    const auto report = pareto_report(kernels, options.pareto, policy);
    if (!report) return report_error(err, kExitDataError, "--pareto: " + report.message());
    return print_report(*report, options.json, pareto_to_json, format_pareto_table, out);
  });
}

int run_plan(const PlanOptions& options, std::ostream& out, std::ostream& err) {
  const bool reuse = options.workspace_limit_option->count() > 0;
  const bool division = options.total_workspace_option->count() > 0;
  const bool pareto = options.pareto_option->count() > 0;
  if (int(reuse) + int(division) + int(pareto) > 1) {
    return report_error(err, kExitUsageError,
                        "--workspace-limit, --total-workspace and --pareto exclude each other: give a "
                        "limit per kernel (WR), one budget for all kernels (WD) or one kernel's front");
  }
  if (!reuse && !division && !pareto) {
    return report_error(err, kExitUsageError,
                        "one of --workspace-limit (per kernel, WR), --total-workspace (for "
                        "all kernels, WD) or --pareto (one kernel's front) is required");
  }
  if (pareto) return run_pareto(options, out, err);
  return reuse ? run_reuse(options, out, err) : run_division(options, out, err);
}

}  // namespace

std::pair<CLI::App*, CommandRunner> add_plan_command(CLI::App& app) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* plan = app.add_subcommand(
      "plan",
      "Plan micro-batches (workspace reuse or division) from a recorded benchmark table");
  // Plain strings: the project's own parsers give the error messages and accept its units.
  plan->add_option("--measurements", options->measurements,
                   "Benchmark table CSV (layer,op,microbatch,algo,math_type,time_ms,"
                   "workspace_bytes[,engine[,host_ms]])")
      ->type_name("FILE")
      ->required();
  options->workspace_limit_option =
      plan->add_option("--workspace-limit", options->workspace_limit,
                       std::string("Workspace limit per kernel (WR), e.g. 64MiB; ") + kByteSizeUnits)
          ->type_name("SIZE");
  options->total_workspace_option =
      plan->add_option("--total-workspace", options->total_workspace,
                       std::string("One workspace budget divided among all kernels (WD), e.g. 120MiB; ") +
                           kByteSizeUnits)
          ->type_name("SIZE");
  options->pareto_option =
      plan->add_option("--pareto", options->pareto,
                       "Print one kernel's desirable configurations (Pareto front of time and "
                       "workspace), e.g. alex_conv2:fwd")
          ->type_name("LAYER:OP");
  plan->add_option("--policy", options->policy, "Micro-batch sizes: all, powerOfTwo, undivided")
      ->type_name("POLICY")
      ->capture_default_str();
  plan->add_option("--candidates", options->candidates,
                   "Plan from the rows of: legacy (cuDNN's algorithms), engines (graph-API engine "
                   "configurations) or both")
      ->type_name("SET")
      ->capture_default_str();
  plan->add_option("--time-limit", options->time_limit,
                   "WD: seconds the integer program may search (default UCUDNN_WD_TIME_LIMIT, else 10); then "
                   "the best plan found, with its gap")
      ->type_name("SECONDS");
  plan->add_flag("--json", options->json, "Print the plan as one JSON object");
  return {plan, [options](std::ostream& out, std::ostream& err) {
            return run_plan(*options, out, err);
          }};
}

}  // namespace ucudnn::tools
