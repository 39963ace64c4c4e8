#include "tools/cli.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <exception>
#include <utility>

#include "tools/bench_command.h"
#include "tools/command.h"
#include "tools/db_command.h"
#include "tools/plan_command.h"

namespace ucudnn {
namespace {

int parse_and_run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"ucudnn: micro-batched cuDNN convolutions (offline tools)", "ucudnn"};
  app.require_subcommand(1);

  // Each subcommand registers itself; new ones (bench, db) are added to this list.
  std::vector<std::pair<CLI::App*, CommandRunner>> commands;
  commands.push_back(add_plan_command(app));
  commands.push_back(add_db_command(app));
  commands.push_back(add_bench_command(app));

  // CLI11 would call `ucudnn bogus` a missing subcommand; name the word the user typed instead.
  if (!args.empty() && !args.front().empty() && args.front()[0] != '-') {
    const bool known = std::any_of(commands.begin(), commands.end(), [&](const auto& command) {
      return command.first->check_name(args.front());
    });
    if (!known) {
      return report_error(err, kExitUsageError,
                          "unknown subcommand '" + args.front() + "' (see --help)");
    }
  }

  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
    app.parse(std::move(reversed));
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return kExitOk;
    return report_error(err, kExitUsageError, std::string(e.what()) + " (see --help)");
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

}  // namespace ucudnn
