#include <iostream>
#include <string>
#include <vector>

#include "core/env_config.h"
#include "tools/cli.h"
#include "tools/command.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  // Every UCUDNN_* variable is checked once, for every command, as cudnnCreate checks them; `run`
  // checks those the program will see instead (its options replace some).
  if (args.empty() || args.front() != "run") {
    const auto& config = ucudnn::env_config();
    if (!config) return ucudnn::tools::report_error(std::cerr, ucudnn::tools::kExitUsageError, config.message());
  }
  return ucudnn::tools::run_cli(args, std::cout, std::cerr);
}
