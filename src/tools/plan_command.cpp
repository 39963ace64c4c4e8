#include "tools/plan_command.h"

#include <filesystem>
#include <memory>
#include <string>

#include "core/batch_policy.h"
#include "core/measurement_csv.h"
#include "core/units.h"
#include "tools/cli.h"
#include "tools/plan_format.h"
#include "tools/plan_report.h"

namespace ucudnn {
namespace {

struct PlanOptions {
  std::string measurements;
  std::string workspace_limit;
  std::string policy = "powerOfTwo";
  bool json = false;
};

int run_plan(const PlanOptions& options, std::ostream& out, std::ostream& err) {
  // Check the whole command line before touching the file: usage errors come first.
  const auto limit = parse_byte_size(options.workspace_limit);
  if (!limit) return report_error(err, kExitUsageError, "--workspace-limit: " + limit.error());
  const auto policy = parse_batch_size_policy(options.policy);
  if (!policy) return report_error(err, kExitUsageError, "--policy: " + policy.error());

  // An ifstream opens a directory and only fails on reading; say what is wrong instead.
  std::error_code ignored;
  if (std::filesystem::is_directory(options.measurements, ignored)) {
    return report_error(err, kExitDataError,
                        "measurements file '" + options.measurements + "' is a directory");
  }
  const auto kernels = read_measurements_csv(options.measurements);
  if (!kernels) return report_error(err, kExitDataError, kernels.error());
  const auto report = plan_workspace_reuse(*kernels, *policy, *limit);
  if (!report) return report_error(err, kExitDataError, report.error());

  // Nothing reaches `out` until the whole plan exists, so a failure leaves no partial table.
  if (options.json) {
    out << plan_to_json(*report).dump() << '\n';
  } else {
    out << format_plan_table(*report);
  }
  return kExitOk;
}

}  // namespace

std::pair<CLI::App*, CommandRunner> add_plan_command(CLI::App& app) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* plan = app.add_subcommand(
      "plan", "Plan micro-batches (workspace reuse) from a recorded benchmark table");
  // Plain strings: the project's own parsers give the error messages and accept its units.
  plan->add_option("--measurements", options->measurements,
                   "Benchmark table CSV (layer,op,microbatch,algo,math_type,time_ms,"
                   "workspace_bytes)")
      ->required();
  plan->add_option("--workspace-limit", options->workspace_limit,
                   "Workspace limit per kernel: bytes or a size such as 64MiB, 512KiB, 1GiB")
      ->required();
  plan->add_option("--policy", options->policy, "Micro-batch sizes: all, powerOfTwo, undivided")
      ->capture_default_str();
  plan->add_flag("--json", options->json, "Print the plan as one JSON object");
  return {plan, [options](std::ostream& out, std::ostream& err) {
            return run_plan(*options, out, err);
          }};
}

}  // namespace ucudnn
