#include "tools/run_command.h"

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/batch_policy.h"
#include "core/candidate_kinds.h"
#include "core/env_config.h"
#include "core/units.h"
#include "tools/build_info.h"
#include "tools/cli.h"
#include "tools/cudnn_locator.h"
#include "tools/run_environment.h"
#include "tools/subprocess.h"

extern char** environ;

namespace ucudnn::tools {
namespace {

struct RunOptions {
  std::string preload;
  std::string cudnn;
  std::string workspace_limit;
  std::string database;
  std::string policy;
  std::string candidates;
  bool no_stats = false;
  bool dry_run = false;
  std::vector<std::string> command;
  std::vector<std::string> unknown;  ///< words before the program that are not run's options
  // Whether each option was given at all: an empty value is given, and wrong.
  const CLI::Option* workspace_limit_option = nullptr;
  const CLI::Option* database_option = nullptr;
  const CLI::Option* policy_option = nullptr;
  const CLI::Option* candidates_option = nullptr;
};

// The options checked and spelled as the child's variables want them (a usage error otherwise),
// the paths still to be found.
Expected<ChildSettings> checked_settings(const RunOptions& options) {
  ChildSettings settings;
  settings.statistics = !options.no_stats;
  if (options.workspace_limit_option->count() > 0) {
    const auto limit = parse_byte_size(options.workspace_limit);
    if (!limit) return limit.error().prefixed("--workspace-limit: ");
    settings.workspace_limit = options.workspace_limit;
  }
  if (options.database_option->count() > 0) {
    if (options.database.empty()) return Error{"--database: the path is empty"};
    settings.database = options.database;
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
    return Error{which + " is major version " + std::to_string(cudnn_major(cudnn.version)) +
                 ", but this ucudnn was built against cuDNN " + std::to_string(built.cudnn_major) + ": name a cuDNN " +
                 std::to_string(built.cudnn_major) + " with --cudnn"};
  }
  const int cudart_major = static_cast<int>(cudnn.cudart_version / 1000);
  if (cudart_major != built.cudart_major) {
    return Error{which + " was built for CUDA " + std::to_string(cudart_major) +
                 ", but this ucudnn was built against CUDA " + std::to_string(built.cudart_major) +
                 ": name a cuDNN for CUDA " + std::to_string(built.cudart_major) + " with --cudnn"};
  }
  return Status::success();
}

// The limit the status line names: the option's, else one already forced by the environment.
std::string workspace_limit_text(const ChildSettings& settings, const EnvConfig& config) {
  if (!settings.workspace_limit.empty()) return format_byte_size(*parse_byte_size(settings.workspace_limit));
  if (config.forced_workspace_limit) return format_byte_size(*config.forced_workspace_limit);
  return "the program's";
}

std::string executable_path() {
  std::error_code ignored;
  return std::filesystem::read_symlink("/proc/self/exe", ignored).string();
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
  const Expected<EnvConfig>& config = env_config();
  if (!config) return report_error(err, kExitUsageError, config.message());

  const auto preload = locate_preload_library(options.preload, config->preload_library, executable_path());
  if (!preload) return report_error(err, kExitDataError, preload.message());
  const char* library_path = std::getenv("LD_LIBRARY_PATH");
  const auto cudnn = locate_cudnn({options.cudnn, options.command.front(), library_path ? library_path : ""});
  if (!cudnn) return report_error(err, kExitDataError, cudnn.message());
  const Status compatible = check_compatible(*cudnn, *built);
  if (!compatible) return report_error(err, kExitDataError, compatible.message());

  ChildSettings child = *settings;
  child.preload_library = *preload;
  child.cudnn_folder = cudnn->folder;
  const std::vector<EnvChange> changes =
      child_environment_changes(child, [](const char* name) -> const char* { return std::getenv(name); });
  if (options.dry_run) {
    for (const EnvChange& change : changes) out << describe(change) << '\n';
    std::string command;
    for (const std::string& word : options.command) command += (command.empty() ? "" : " ") + shell_quote(word);
    out << command << '\n';
    return kExitOk;
  }

  err << "ucudnn run: preloading " << *preload << "; cuDNN " << cudnn_version_text(cudnn->version) << " from "
      << cudnn->folder << "; workspace limit " << workspace_limit_text(child, *config) << '\n';
  out.flush();  // the program writes to the same files after this
  err.flush();
  const auto exit = run_and_wait(options.command, with_changes(current_environment(), changes));
  if (!exit) {
    return report_error(err, kExitCannotRun, "cannot run '" + options.command.front() + "': " + exit.message());
  }
  return exit->status;
}

}  // namespace

std::pair<CLI::App*, CommandRunner> add_run_command(CLI::App& app) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand(
      "run", "Run a program (e.g. python3 train.py) with ucudnn preloaded in place of cuDNN's convolutions");
  run->add_option("--preload", options->preload,
                  std::string("The preload library (default: UCUDNN_PRELOAD_LIBRARY, else ") + kPreloadLibraryName +
                      " beside this command, installed or built)")
      ->type_name("PATH");
  run->add_option("--cudnn", options->cudnn,
                  "The program's cuDNN: a libcudnn.so.9 or its folder (default: a Python interpreter's torch, "
                  "else LD_LIBRARY_PATH, else the dynamic linker's)")
      ->type_name("PATH");
  const std::string limit_help =
      std::string("Force this workspace limit per kernel on every call (UCUDNN_FORCE_WORKSPACE_LIMIT), e.g. 64MiB; ") +
      kByteSizeUnits;
  options->workspace_limit_option =
      run->add_option("--workspace-limit", options->workspace_limit, limit_help)->type_name("SIZE");
  options->database_option =
      run->add_option("--database", options->database, "Benchmark database (UCUDNN_DATABASE)")->type_name("FILE");
  const std::string policy_help = "Micro-batch sizes: all, powerOfTwo, undivided (UCUDNN_BATCH_SIZE_POLICY)";
  options->policy_option = run->add_option("--policy", options->policy, policy_help)->type_name("POLICY");
  options->candidates_option =
      run->add_option("--candidates", options->candidates, "Plan from: legacy, engines or both (UCUDNN_CANDIDATES)")
          ->type_name("SET");
  run->add_flag("--no-stats", options->no_stats, "Do not print ucudnn's statistics at exit (UCUDNN_STATS=0)");
  run->add_flag("--dry-run", options->dry_run, "Print the environment changes and the command instead of running it");
  run->add_option("program", options->command,
                  "The program to run and its arguments, after -- (ucudnn run [OPTIONS] -- PROGRAM [ARGS...])")
      ->type_name("ARG");
  run->footer("Exit status: the program's (128 + N where signal N ended it); 127 where it could not be started.");
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
