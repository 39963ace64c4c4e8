#include "tools/cli.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <exception>
#include <string>
#include <utility>

#include "tools/bench_command.h"
#include "tools/cli_suggest.h"
#include "tools/command.h"
#include "tools/db_command.h"
#include "tools/help_footer.h"
#include "tools/plan_command.h"
#include "tools/run_command.h"
#include "tools/version_command.h"

namespace ucudnn::tools {
namespace {

// CLI11 starts some sentences with a capital ("Could not convert: ..."); every other error line
// starts lower-case. Only a capital followed by a lower-case letter is a sentence's: "UCUDNN_X"
// and "SQLite" stay as written.
std::string lower_case_start(std::string message) {
  if (message.size() > 1 && std::isupper(static_cast<unsigned char>(message[0])) &&
      std::islower(static_cast<unsigned char>(message[1]))) {
    message[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(message[0])));
  }
  return message;
}

// CLI11 2.1 writes a hidden positional (an old spelling kept working) as "[]" in the usage line
// and leaves a blank line where hidden options were: help shows what is current only.
std::string without_hidden_traces(std::string help) {
  for (std::size_t at; (at = help.find(" []\n")) != std::string::npos;) help.erase(at, 3);
  for (std::size_t at; (at = help.find("\n\n\n")) != std::string::npos;) help.erase(at, 1);
  return help;
}

int parse_and_run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"ucudnn: micro-batched cuDNN convolutions: plan offline, benchmark, run a program, keep the database",
               "ucudnn"};
  app.require_subcommand(1);
  // `ucudnn --version` alone is answered here, before parsing. CLI11 meets the flag only with
  // something else given too (`--help --version`, `--version=1`): refused below, never ignored.
  app.set_version_flag("--version", std::string(),
                       "Print the version and what this build was compiled with, and exit");
  if (args.size() == 1 && args.front() == "--version") {
    out << version_text();
    return kExitOk;
  }
  if (!args.empty() && args.front() == "--version") {
    return report_error(err, kExitUsageError, "--version takes no other arguments (got '" + args[1] + "')");
  }

  // Each subcommand registers itself; new ones are added to this list.
  std::vector<std::pair<CLI::App*, CommandRunner>> commands;
  commands.push_back(add_plan_command(app));
  commands.push_back(add_db_command(app));
  commands.push_back(add_bench_command(app));
  commands.push_back(add_run_command(app));
  commands.push_back(add_version_command(app));
  // Each subcommand's notes fit its own options; the main help's, set after them (CLI11 copies a
  // parent's footer into the subcommands made later), has every note.
  add_fitting_footers(app);
  app.footer(main_help_footer());

  // CLI11's own words for this start with a capital, unlike every other message.
  if (args.empty()) {
    return report_error(err, kExitUsageError, "a subcommand is required: plan, db, bench, run or version (see --help)");
  }

  // CLI11 would call `ucudnn bogus` a missing subcommand, `--measurments` a missing
  // --measurements, and list unexpected words in reverse: name the word the user typed instead.
  if (const std::optional<std::string> unknown = first_unknown_word(app, args)) {
    return report_error(err, kExitUsageError, *unknown + " (see --help)");
  }

  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
    app.parse(std::move(reversed));
  } catch (const CLI::CallForHelp&) {
    out << without_hidden_traces(app.help());
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    out << without_hidden_traces(app.help("", CLI::AppFormatMode::All));
    return kExitOk;
  } catch (const CLI::CallForVersion&) {
    return report_error(err, kExitUsageError, "--version takes no other arguments: run `ucudnn --version` alone");
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return kExitOk;
    return report_error(err, kExitUsageError, lower_case_start(e.what()) + " (see --help)");
  }

  for (auto& [subcommand, runner] : commands) {
    if (subcommand->parsed()) return runner(out, err);
  }
  return report_error(err, kExitUsageError, "no subcommand given (see --help)");
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    return parse_and_run(args, out, err);
  } catch (const std::exception& e) {
    return report_error(err, kExitDataError, std::string("internal error: ") + e.what());
  } catch (...) {
    return report_error(err, kExitDataError, "internal error: unknown exception");
  }
}

}  // namespace ucudnn::tools
