#pragma once
// The `ucudnn` command line, callable in-process so that tests need not spawn the binary.
//
// Exit statuses and the integer options every command shares: tools/cli_options.h.

#include <ostream>
#include <string>
#include <vector>

#include "tools/cli_options.h"

namespace ucudnn::tools {

/// Runs the command line `args` (without the program name); never throws.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace ucudnn::tools
