#include "tools/plan_command.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/batch_policy.h"
#include "core/candidate_kinds.h"
#include "core/env_config.h"
#include "core/measurement_csv.h"
#include "core/units.h"
#include "tools/cli_options.h"
#include "tools/measurement_networks.h"
#include "tools/networks.h"
#include "tools/plan_format.h"
#include "tools/plan_input.h"
#include "tools/plan_report.h"
#include "tools/settings_help.h"

namespace ucudnn::tools {
namespace {

struct PlanOptions {
  std::vector<std::string> words;  ///< FILE and NETWORK given as words
  std::string measurements;
  std::string network;
  std::string workspace_limit;
  std::string total_workspace;
  std::string pareto;
  std::string policy;      ///< not given: UCUDNN_BATCH_SIZE_POLICY's
  std::string candidates;  ///< not given: UCUDNN_CANDIDATES'
  std::string time_limit;
  bool json = false;
  std::string gpu_name;
  int compute_capability = 0, sm_count = 0, cudnn_version = 0, cuda_version = 0;
  // Whether each option was given at all: an empty value is given, and wrong.
  const CLI::Option* measurements_option = nullptr;
  const CLI::Option* network_option = nullptr;
  const CLI::Option* policy_option = nullptr;
  const CLI::Option* candidates_option = nullptr;
  const CLI::Option* workspace_limit_option = nullptr;
  const CLI::Option* total_workspace_option = nullptr;
  const CLI::Option* pareto_option = nullptr;
  const CLI::Option* gpu_name_option = nullptr;
  const CLI::Option* compute_capability_option = nullptr;
  const CLI::Option* sm_count_option = nullptr;
  const CLI::Option* cudnn_version_option = nullptr;
  const CLI::Option* cuda_version_option = nullptr;
};

enum class Mode { kReuse, kDivision, kPareto };

// Everything the command line and the settings say, checked before any file is read: usage errors
// (exit 2) come before anything the measurements hold (data errors, exit 1).
struct Request {
  Mode mode = Mode::kReuse;
  std::size_t size = 0;  ///< WR's limit per kernel or WD's budget
  PlanOrigin origin;     ///< the setting that gave `size` where no option did
  double time_limit = 0.0;
  BatchSizePolicy policy = BatchSizePolicy::kPowerOfTwo;
  CandidateSet candidates = CandidateSet::kBoth;
  PlanSources sources;
  DeviceChoice device;
};

template <typename T>
std::optional<T> if_given(const CLI::Option* option, const T& value) {
  return option->count() ? std::optional<T>(value) : std::nullopt;
}

// The mode the options ask for; without one, the library's: WD where UCUDNN_TOTAL_WORKSPACE_SIZE
// sets a budget, else WR under UCUDNN_DEFAULT_WORKSPACE_LIMIT (what a call naming no limit gets).
Status choose_mode(const PlanOptions& options, const Settings& settings, Request* request) {
  const bool reuse = options.workspace_limit_option->count() > 0;
  const bool division = options.total_workspace_option->count() > 0;
  const bool pareto = options.pareto_option->count() > 0;
  if (int(reuse) + int(division) + int(pareto) > 1) {
    return Error::invalid(
        "--workspace-limit, --total-workspace and --pareto exclude each other: give a "
        "limit per kernel (WR), one budget for all kernels (WD) or one kernel's front");
  }
  if (pareto) {
    request->mode = Mode::kPareto;
  } else if (reuse) {
    const auto limit = parse_byte_size(options.workspace_limit);
    if (!limit) return limit.error().prefixed("--workspace-limit: ");
    request->size = *limit;
  } else if (division) {
    const auto total = parse_total_workspace(options.total_workspace);
    if (!total) return total.error().prefixed("--total-workspace: ");
    request->mode = Mode::kDivision;
    request->size = *total;
  } else if (settings.total_workspace > 0) {
    request->mode = Mode::kDivision;
    request->size = settings.total_workspace;
    request->origin.limit_origin = "UCUDNN_TOTAL_WORKSPACE_SIZE";
  } else {
    request->size = settings.default_workspace_limit;
    request->origin.limit_origin = "UCUDNN_DEFAULT_WORKSPACE_LIMIT";
  }
  request->time_limit = settings.wd_time_limit_seconds;
  if (options.time_limit.empty()) return Status::success();
  const auto parsed = parse_time_limit_seconds(options.time_limit);
  if (!parsed) return parsed.error().prefixed("--time-limit: ");
  request->time_limit = *parsed;
  return Status::success();
}

Expected<Request> request_of(const PlanOptions& options) {
  const Expected<Settings>& settings = env_config();
  UCUDNN_TRY(settings);
  Request request;
  UCUDNN_TRY(choose_mode(options, *settings, &request));
  request.policy = settings->policy;
  if (options.policy_option->count()) {
    const auto policy = parse_batch_size_policy(options.policy);
    if (!policy) return policy.error().prefixed("--policy: ");
    request.policy = *policy;
  }
  request.candidates = settings->candidates;
  if (options.candidates_option->count()) {
    const auto candidates = parse_candidate_set(options.candidates);
    if (!candidates) return candidates.error().prefixed("--candidates: ");
    request.candidates = *candidates;
  }
  for (const CLI::Option* path : {options.measurements_option, options.network_option}) {
    if (path->count() && path->as<std::string>().empty()) return Error::invalid(path->get_name() + ": an empty name");
  }
  UCUDNN_TRY_ASSIGN(request.sources,
                    plan_sources(options.words, options.measurements, options.network, settings->database));
  request.device = DeviceChoice{if_given(options.gpu_name_option, options.gpu_name),
                                if_given(options.compute_capability_option, options.compute_capability),
                                if_given(options.sm_count_option, options.sm_count),
                                if_given(options.cudnn_version_option, options.cudnn_version),
                                if_given(options.cuda_version_option, options.cuda_version)};
  return request;
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

int plan(const PlanOptions& options, const Request& request, const PlanInput& input, std::ostream& out,
         std::ostream& err) {
  const auto kernels = rows_of_candidates(input.kernels, request.candidates);
  if (!kernels) return report_error(err, kExitDataError, kernels.message());
  PlanOrigin origin = request.origin;
  origin.network = input.network;
  switch (request.mode) {
    case Mode::kReuse: {
      auto report = plan_workspace_reuse(*kernels, request.policy, request.size);
      if (!report) return report_error(err, kExitDataError, report.message());
      report->origin = origin;
      return print_report(*report, options.json, plan_to_json, format_plan_table, out);
    }
    case Mode::kDivision: {
      auto report = plan_workspace_division(*kernels, request.policy, request.size, request.time_limit);
      if (!report) return report_error(err, kExitDataError, report.message());
      report->origin = origin;
      return print_report(*report, options.json, wd_plan_to_json, format_wd_table, out);
    }
    case Mode::kPareto: {
      const auto report = pareto_report(*kernels, options.pareto, request.policy);
      if (!report) return report_error(err, kExitDataError, "--pareto: " + report.message());
      return print_report(*report, options.json, pareto_to_json, format_pareto_table, out);
    }
  }
  return report_error(err, kExitDataError, "internal error: unknown plan mode");
}

int run_plan(const PlanOptions& options, std::ostream& out, std::ostream& err) {
  const auto request = request_of(options);
  if (!request) return report_error(err, kExitUsageError, request.message());
  const auto input = read_plan_input(request->sources, request->device);
  if (!input) return report_error(err, kExitDataError, input.message());
  return plan(options, *request, *input, out, err);
}

}  // namespace

std::pair<CLI::App*, CommandRunner> add_plan_command(CLI::App& app) {
  auto options = std::make_shared<PlanOptions>();
  CLI::App* plan = app.add_subcommand(
      "plan", "Plan micro-batches (workspace reuse or division) from recorded measurements: a table or a database");
  // Plain strings: the project's own parsers give the error messages and accept its units.
  plan->add_option("input", options->words,
                   "The measurements: a benchmark table (CSV) or a ucudnn database (SQLite), told apart by their "
                   "content; and/or a built-in network (" +
                       listed_networks(builtin_network_names()) + ") to plan, as --network")
      ->type_name("FILE|NET");
  options->measurements_option =
      plan->add_option("--measurements", options->measurements,
                       "The measurements, as a FILE word: a table (layer,op,microbatch,algo,math_type,time_ms,"
                       "workspace_bytes[,engine[,host_ms]]) or a database (default: UCUDNN_DATABASE)")
          ->type_name("FILE");
  options->network_option =
      plan->add_option("--network", options->network,
                       "Plan this network's kernels (a built-in network or a network JSON file); a database's rows are "
                       "named by it (default for a database: the one built-in network its layers make)")
          ->type_name("NET");
  options->workspace_limit_option =
      plan->add_option("--workspace-limit", options->workspace_limit,
                       "Workspace limit per kernel (WR), e.g. 64MiB (default, where no other mode is asked for: " +
                           setting_default("UCUDNN_DEFAULT_WORKSPACE_LIMIT") + ", as the library's calls); " +
                           kByteSizeUnits)
          ->type_name("SIZE");
  options->total_workspace_option =
      plan->add_option("--total-workspace", options->total_workspace,
                       std::string("One workspace budget divided among all kernels (WD), e.g. 120MiB (default: "
                                   "UCUDNN_TOTAL_WORKSPACE_SIZE where set); ") +
                           kByteSizeUnits)
          ->type_name("SIZE");
  options->pareto_option =
      plan->add_option("--pareto", options->pareto,
                       "Print one kernel's desirable configurations (Pareto front of time and "
                       "workspace), e.g. alex_conv2:fwd")
          ->type_name("LAYER:OP");
  options->policy_option = plan->add_option("--policy", options->policy,
                                            "Micro-batch sizes: all, powerOfTwo, undivided (default: " +
                                                setting_default("UCUDNN_BATCH_SIZE_POLICY") + ")")
                               ->type_name("POLICY");
  options->candidates_option =
      plan->add_option("--candidates", options->candidates,
                       "Plan from the rows of: legacy (cuDNN's algorithms), engines (graph-API engine "
                       "configurations) or both (default: " +
                           setting_default("UCUDNN_CANDIDATES") + ")")
          ->type_name("SET");
  plan->add_option("--time-limit", options->time_limit,
                   "WD: seconds the integer program may search (default: " + setting_default("UCUDNN_WD_TIME_LIMIT") +
                       "); then the best plan found, with its gap")
      ->type_name("SECONDS");
  plan->add_flag("--json", options->json, "Print the plan as one JSON object");
  options->gpu_name_option = plan->add_option("--gpu-name", options->gpu_name,
                                              "A database's rows of this GPU (needed where it holds several devices)");
  options->compute_capability_option =
      add_integer_option(plan, "--compute-capability", options->compute_capability, "... of this compute capability");
  options->sm_count_option = add_integer_option(plan, "--sm-count", options->sm_count, "... of this number of SMs");
  options->cudnn_version_option =
      add_integer_option(plan, "--cudnn-version", options->cudnn_version, "... measured with this cuDNN version");
  options->cuda_version_option =
      add_integer_option(plan, "--cuda-version", options->cuda_version, "... measured with this CUDA runtime version");
  return {plan, [options](std::ostream& out, std::ostream& err) { return run_plan(*options, out, err); }};
}

}  // namespace ucudnn::tools
