#include "tools/run_command.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/batch_policy.h"
#include "core/candidate_kinds.h"
#include "core/env_config.h"
#include "core/units.h"
#include "tools/beside_command.h"
#include "tools/build_info.h"
#include "tools/cli_options.h"
#include "tools/cudnn_locator.h"
#include "tools/gpu_presence.h"
#include "tools/run_environment.h"
#include "tools/subprocess.h"

extern char** environ;

namespace ucudnn::tools {
namespace {

struct RunOptions {
  std::string preload;
  std::string cudnn;
  std::string workspace_limit;
  std::string memory_budget;
  std::string database;
  std::string policy;
  std::string candidates;
  bool micro_batch_offers = false;
  bool no_micro_batch_offers = false;
  bool no_stats = false;
  bool dry_run = false;
  std::vector<std::string> command;
  std::vector<std::string> unknown;  ///< words before the program that are not run's options
  // Whether each option was given at all: an empty value is given, and wrong.
  const CLI::Option* preload_option = nullptr;
  const CLI::Option* cudnn_option = nullptr;
  const CLI::Option* workspace_limit_option = nullptr;
  const CLI::Option* memory_budget_option = nullptr;
  const CLI::Option* database_option = nullptr;
  const CLI::Option* policy_option = nullptr;
  const CLI::Option* candidates_option = nullptr;
};

// The options checked and spelled as the child's variables want them (a usage error otherwise),
// the paths still to be found.
Expected<ChildSettings> checked_settings(const RunOptions& options) {
  ChildSettings settings;
  settings.statistics = !options.no_stats;
  if (options.micro_batch_offers && options.no_micro_batch_offers) {
    return Error::invalid("--micro-batch-offers and --no-micro-batch-offers: give one of them");
  }
  if (options.micro_batch_offers) settings.micro_batch_offers = "1";
  if (options.no_micro_batch_offers) settings.micro_batch_offers = "0";
  if (options.preload_option->count() > 0 && options.preload.empty())
    return Error::invalid("--preload: the path is empty");
  if (options.cudnn_option->count() > 0 && options.cudnn.empty()) return Error::invalid("--cudnn: the path is empty");
  if (options.workspace_limit_option->count() > 0) {
    const auto limit = parse_byte_size(options.workspace_limit);
    if (!limit) return limit.error().prefixed("--workspace-limit: ");
    settings.workspace_limit = options.workspace_limit;
  }
  if (options.memory_budget_option->count() > 0) {
    const auto budget = parse_memory_budget(options.memory_budget);
    if (!budget) return budget.error().prefixed("--memory-budget: ");
    settings.memory_budget = options.memory_budget;
  }
  if (options.database_option->count() > 0) {
    if (options.database.empty()) return Error::invalid("--database: the path is empty");
    // Absolute: the program may change folder before it opens the database.
    std::error_code failed;
    settings.database = std::filesystem::absolute(options.database, failed).string();
    if (failed)
      return Error::invalid("--database: cannot make '" + options.database + "' absolute: " + failed.message());
  }
  if (options.policy_option->count() > 0) {
    const auto policy = parse_batch_size_policy(options.policy);
    if (!policy) return policy.error().prefixed("--policy: ");
    settings.policy = to_string(*policy);
  }
  if (options.candidates_option->count() > 0) {
    const auto candidates = parse_candidate_set(options.candidates);
    if (!candidates) return candidates.error().prefixed("--candidates: ");
    settings.candidates = to_string(*candidates);
  }
  return settings;
}

// A cuDNN ucudnn cannot share a process with: another major version, or built for another CUDA
// runtime major (the preload library links this build's libcudart).
Status check_compatible(const CudnnLibrary& cudnn, const CompiledVersions& built) {
  const std::string which =
      "cuDNN " + cudnn_version_text(cudnn.version) + " at " + cudnn.path + " (found by " + cudnn.found_by + ")";
  if (cudnn_major(cudnn.version) != built.cudnn_major) {
    return Error::invalid(which + " is major version " + std::to_string(cudnn_major(cudnn.version)) +
                          ", but this ucudnn was built against cuDNN " + std::to_string(built.cudnn_major) +
                          ": name a cuDNN " + std::to_string(built.cudnn_major) + " with --cudnn");
  }
  const int cudart_major = static_cast<int>(cudnn.cudart_version / 1000);
  if (cudart_major != built.cudart_major) {
    return Error::invalid(which + " was built for CUDA " + std::to_string(cudart_major) +
                          ", but this ucudnn was built against CUDA " + std::to_string(built.cudart_major) +
                          ": name a cuDNN for CUDA " + std::to_string(built.cudart_major) + " with --cudnn");
  }
  return Status::success();
}

// The dynamic linker splits LD_PRELOAD at spaces and colons and LD_LIBRARY_PATH at colons and
// semicolons, and expands $ORIGIN, $LIB and $PLATFORM in both, with no way to quote them: such a
// path would be split or rewritten, and the program would run without ucudnn, or with another
// cuDNN, saying nothing.
Status check_list_safe(const std::string& path, const char* separators, const std::string& what, const char* variable) {
  const std::size_t at = path.find_first_of(separators);
  if (at == std::string::npos) return Status::success();
  const std::string character = path[at] == ' ' ? "a space" : "'" + std::string(1, path[at]) + "'";
  const std::string does = path[at] == '$' ? "expands names after" : "splits";
  return Error::invalid(what + " '" + path + "' holds " + character + ", at which the dynamic linker " + does + " " +
                        variable +
                        " (it cannot be quoted there): install it, or link it, under a path without spaces, "
                        "':', ';' or '$'");
}

// What the program will see of ucudnn's variables: the current environment with `settings`'
// changes. Checked as cudnnCreate will check it in the program, so that a bad value an option
// replaces is no error, and one the program would meet is named before it starts.
Expected<Settings> config_seen_by_program(const ChildSettings& settings) {
  const std::vector<EnvChange> changes =
      child_environment_changes(settings, [](const char* name) -> const char* { return std::getenv(name); });
  SettingValues values;
  for (const SettingRow& row : setting_rows()) {
    if (const char* value = std::getenv(row.name)) values[row.name] = value;
  }
  for (const EnvChange& change : changes) {
    const auto names_it = [&](const SettingRow& row) { return change.name == row.name; };
    if (std::none_of(setting_rows().begin(), setting_rows().end(), names_it)) continue;  // LD_PRELOAD
    if (change.value) {
      values[change.name] = *change.value;
    } else {
      values.erase(change.name);
    }
  }
  return parse_settings(values);
}

// Options that contradict each other, or the environment the program will see: micro-batch offers
// are made under a memory budget only, and a forced workspace limit replaces the budget. Refused
// where one of the two was given as an option (what the environment alone says is the library's to
// resolve: the limit wins), naming both.
Status check_conflicts(const RunOptions& options, const Settings& config) {
  const bool limit_given = options.workspace_limit_option->count() > 0;
  const bool budget_given = options.memory_budget_option->count() > 0;
  const std::string limit = limit_given ? "--workspace-limit" : "UCUDNN_FORCE_WORKSPACE_LIMIT";
  const std::string budget = budget_given ? "--memory-budget " + options.memory_budget : "UCUDNN_MEMORY_BUDGET=off";
  const bool forced = config.forced_workspace_limit.has_value();
  if (options.micro_batch_offers && forced) {
    return Error::invalid(
        "--micro-batch-offers and " + limit +
        ": offers are made under a memory budget, which a forced workspace limit replaces; give one of them");
  }
  if (options.micro_batch_offers && config.memory_budget.kind == MemoryBudget::Kind::kOff) {
    return Error::invalid("--micro-batch-offers and " + budget +
                          ": offers are made under a memory budget only; give one of them");
  }
  if (budget_given && forced && config.memory_budget.kind != MemoryBudget::Kind::kOff) {
    return Error::invalid("--memory-budget and " + limit +
                          ": a forced workspace limit replaces the memory budget; give one of them");
  }
  return Status::success();
}

// Why the kernel refused the program's arguments and environment (E2BIG), with ucudnn's part in
// it: a string longer than one may be (MAX_ARG_STRLEN, 32 pages), or all of them together
// beyond ARG_MAX.
std::string too_large_for_the_kernel(const std::vector<std::string>& argv, const std::vector<std::string>& environment,
                                     const std::vector<EnvChange>& changes) {
  constexpr std::size_t kMaxString = 32 * 4096;  // the kernel's MAX_ARG_STRLEN, its NUL included
  std::size_t total = 0;
  const std::string* longest = nullptr;
  for (const auto* strings : {&argv, &environment}) {
    for (const std::string& each : *strings) {
      total += each.size() + 1 + sizeof(char*);
      if (longest == nullptr || each.size() > longest->size()) longest = &each;
    }
  }
  std::size_t added = 0;
  std::string changed;
  for (const EnvChange& change : changes) {
    if (!change.value) continue;
    added += change.name.size() + 1 + change.value->size() + 1;
    if (longest != nullptr && longest->rfind(change.name + "=", 0) == 0) changed = change.name;
  }
  if (longest != nullptr && longest->size() + 1 > kMaxString) {
    const std::string name = longest->substr(0, std::min(longest->find('='), std::size_t{64}));
    const std::string what = changed.empty() ? "'" + name + "'" : changed + ", with what ucudnn run adds to it,";
    return what + " is " + std::to_string(longest->size()) + " bytes, more than the kernel takes in one argument or "
           "variable (" + std::to_string(kMaxString - 1) + "): shorten it";
  }
  return "its arguments and environment take " + std::to_string(total) + " bytes with the " + std::to_string(added) +
         " that ucudnn run sets (LD_PRELOAD, LD_LIBRARY_PATH, UCUDNN_*), more than the kernel takes (ARG_MAX " +
         std::to_string(sysconf(_SC_ARG_MAX)) + " bytes): shorten the environment or the arguments";
}

std::vector<std::string> current_environment() {
  std::vector<std::string> entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) entries.emplace_back(*entry);
  return entries;
}

int run_program(const RunOptions& options, std::ostream& out, std::ostream& err) {
  const std::optional<CompiledVersions> built = compiled_versions();
  if (!built) {
    return report_error(err, kExitDataError,
                        "`run` is unavailable in this build: it was built without the CUDA toolkit and cuDNN, "
                        "so it has no preload library; rebuild where both are installed");
  }
  if (!options.unknown.empty()) {
    return report_error(err, kExitUsageError,
                        "'" + options.unknown.front() + "' is not an option of `run`: put -- before the program " +
                            "and its own options (ucudnn run [OPTIONS] -- PROGRAM [ARGS...])");
  }
  if (options.command.empty()) {
    return report_error(err, kExitUsageError, "no program given: ucudnn run [options] -- PROGRAM [ARGS...]");
  }
  const auto settings = checked_settings(options);
  if (!settings) return report_error(err, kExitUsageError, settings.message());
  const Expected<Settings> config = config_seen_by_program(*settings);
  if (!config) return report_error(err, kExitUsageError, config.message());
  const Status consistent = check_conflicts(options, *config);
  if (!consistent) return report_error(err, kExitUsageError, consistent.message());

  const auto preload = locate_preload_library(options.preload, config->preload_library, this_executable());
  if (!preload) return report_error(err, kExitDataError, preload.message());
  const std::string preload_named_by = !options.preload.empty()            ? "--preload"
                                       : !config->preload_library.empty() ? "UCUDNN_PRELOAD_LIBRARY"
                                                                          : "the preload library beside ucudnn";
  const Status is_preload_layer = check_preload_layer(*preload, preload_named_by);
  if (!is_preload_layer) return report_error(err, kExitDataError, is_preload_layer.message());
  std::error_code failed;
  // Absolute: the program may change folder before the dynamic linker reads LD_PRELOAD.
  const std::string preload_path = std::filesystem::absolute(*preload, failed).string();
  if (failed) {
    return report_error(err, kExitDataError,
                        "cannot make the preload library's path '" + *preload + "' absolute: " + failed.message());
  }
  const Status preload_listable = check_list_safe(preload_path, " :$", "the preload library", "LD_PRELOAD");
  if (!preload_listable) return report_error(err, kExitDataError, preload_listable.message());
  const char* library_path = std::getenv("LD_LIBRARY_PATH");
  const Notes note = [&err](const std::string& line) { err << "ucudnn run: " << line << std::endl; };
  const auto cudnn = locate_cudnn({options.cudnn, options.command.front(), library_path ? library_path : "", note});
  if (!cudnn) return report_error(err, kExitDataError, cudnn.message());
  const Status cudnn_listable = check_list_safe(cudnn->folder, ":;$", "cuDNN's folder", "LD_LIBRARY_PATH");
  if (!cudnn_listable) return report_error(err, kExitDataError, cudnn_listable.message());
  const Status compatible = check_compatible(*cudnn, *built);
  if (!compatible) return report_error(err, kExitDataError, compatible.message());

  ChildSettings child = *settings;
  child.preload_library = preload_path;
  child.cudnn_folder = cudnn->folder;
  child.is_preload_layer = names_a_preload_layer;
  const EnvLookup getenv = [](const char* name) -> const char* { return std::getenv(name); };
  const std::vector<EnvChange> changes = child_environment_changes(child, getenv);
  for (const std::string& layer : preload_layers_left_out(child, getenv)) {
    note("left '" + layer + "' out of LD_PRELOAD: another ucudnn preload layer (one layer per process)");
  }
  if (options.dry_run) {
    for (const EnvChange& change : changes) out << describe(change) << '\n';
    std::string command;
    for (const std::string& word : options.command) command += (command.empty() ? "" : " ") + shell_quote(word);
    out << command << '\n';
    return kExitOk;
  }

  const std::optional<std::string> missing = missing_gpu();
  if (missing) {
    err << "ucudnn run: no GPU: " << *missing
        << "; the program starts anyway, and its cuDNN calls will fail as they would without ucudnn\n";
  }
  // Without a GPU nothing is planned: what plans would be held to means nothing there.
  err << "ucudnn run: preloading " << preload_path << "; cuDNN " << cudnn_version_text(cudnn->version) << " from "
      << cudnn->folder << "; " << (missing ? kNothingPlannedWithoutAGpu : what_plans_are_held_to(child, *config))
      << '\n';
  out.flush();  // the program writes to the same files after this
  err.flush();
  std::cout.flush();
  std::cerr.flush();
  // The program takes this process's place: signals, job control and its exit reach the caller
  // as if it had been started directly.
  const std::vector<std::string> environment = with_changes(current_environment(), changes);
  const ExecFailure failed_exec = exec_program(options.command, environment);
  const std::string message = failed_exec.error == E2BIG
                                  ? too_large_for_the_kernel(options.command, environment, changes)
                                  : failed_exec.message;
  // As env: 127 where the program (or its interpreter) was not found, 126 where it was and could not run.
  return report_error(err, failed_exec.error == ENOENT ? kExitNotFound : kExitCannotRun,
                      "cannot run '" + options.command.front() + "': " + message);
}

}  // namespace

std::pair<CLI::App*, CommandRunner> add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand(
      "run", "Run a program (e.g. python3 train.py) with ucudnn preloaded in place of cuDNN's convolutions");
  options->preload_option = run->add_option("--preload", options->preload,
                                            std::string("The preload library (default: UCUDNN_PRELOAD_LIBRARY, else ") +
                                                kPreloadLibraryName + " beside this command, installed or built)")
                                ->type_name("PATH");
  options->cudnn_option =
      run->add_option("--cudnn", options->cudnn,
                      "The program's cuDNN: a libcudnn.so.9 or its folder (default: a Python interpreter's torch, "
                      "else LD_LIBRARY_PATH, else the dynamic linker's)")
          ->type_name("PATH");
  const std::string limit_help =
      std::string("Force this workspace limit per kernel on every call (UCUDNN_FORCE_WORKSPACE_LIMIT), e.g. 64MiB; ") +
      kByteSizeUnits;
  options->workspace_limit_option =
      run->add_option("--workspace-limit", options->workspace_limit, limit_help)->type_name("SIZE");
  options->memory_budget_option =
      run->add_option("--memory-budget", options->memory_budget,
                      "Where no limit is forced, what graph-API plans may take (UCUDNN_MEMORY_BUDGET): free (the "
                      "default: the GPU's memory), a SIZE (the program's budget on the GPU, e.g. its framework's "
                      "memory fraction plus about 0.5 GiB of CUDA context) or off (a fixed 64 MiB default limit)")
          ->type_name("BUDGET");
  options->database_option =
      run->add_option("--database", options->database, "Benchmark database (UCUDNN_DATABASE)")->type_name("FILE");
  const std::string policy_help = "Micro-batch sizes: all, powerOfTwo, undivided (UCUDNN_BATCH_SIZE_POLICY)";
  options->policy_option = run->add_option("--policy", options->policy, policy_help)->type_name("POLICY");
  options->candidates_option =
      run->add_option("--candidates", options->candidates, "Plan from: legacy, engines or both (UCUDNN_CANDIDATES)")
          ->type_name("SET");
  run->add_flag("--micro-batch-offers", options->micro_batch_offers,
                "Under a memory budget, offer a graph-API program's autotuner ucudnn's micro-batched plans beside "
                "cuDNN's configurations whatever the program (UCUDNN_MICRO_BATCH_OFFERS=1; by default only where "
                "it is PyTorch: never for XLA, which rebuilds plans from their engine)");
  run->add_flag("--no-micro-batch-offers", options->no_micro_batch_offers,
                "Offer no micro-batched plans (UCUDNN_MICRO_BATCH_OFFERS=0)");
  run->add_flag("--no-stats", options->no_stats, "Do not print ucudnn's statistics at exit (UCUDNN_STATS=0)");
  run->add_flag("--dry-run", options->dry_run, "Print the environment changes and the command instead of running it");
  run->add_option("program", options->command,
                  "The program to run and its arguments, after -- (ucudnn run [OPTIONS] -- PROGRAM [ARGS...])")
      ->type_name("ARG");
  run->footer(
      "The program replaces ucudnn's process (as with env): signals reach it directly, and its exit status is "
      "the run's; as env's, 127 where it (or its #! interpreter) was not found and 126 where it was found but could "
      "not be run; 1 or 2 (one line) where ucudnn refused to start it.");
  // A program's own options given without -- come back as extras, to be refused with that advice.
  run->allow_extras();
  return {run, [run, options](std::ostream& out, std::ostream& err) {
            for (const std::string& word : run->remaining()) {
              if (word != "--") options->unknown.push_back(word);
            }
            return run_program(*options, out, err);
          }};
}

}  // namespace ucudnn::tools
