#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include "core/env_config.h"
#include "tools/cli.h"
#include "tools/command.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  // Every UCUDNN_* variable is read once, for every command, before anything logs (the read hands
  // the logger its level and file), and checked as cudnnCreate checks them; `run` checks those the
  // program will see instead (its options replace some).
  const auto& config = ucudnn::env_config();
  if (args.empty() || args.front() != "run") {
    // A write past the file size limit (ulimit -f) fails with EFBIG, which SQLite reports and
    // rolls back, instead of killing the command mid-write. Not for `run`: the program it execs
    // would inherit the setting.
    std::signal(SIGXFSZ, SIG_IGN);
    if (!config) return ucudnn::tools::report_error(std::cerr, ucudnn::tools::kExitUsageError, config.message());
  }
  return ucudnn::tools::run_cli(args, std::cout, std::cerr);
}
