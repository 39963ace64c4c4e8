#pragma once
// The `ucudnn` command line, callable in-process so that tests need not spawn the binary.
//
// Exit statuses:
//   0  success (also `--help`)
//   1  data error: the measurements file is missing, unreadable or malformed, or a kernel has
//      no algorithm (or no plan) within the workspace limit
//   2  usage error: unknown subcommand or option, missing required option, bad size or policy
// `ucudnn run` exits with its program's status (128 + the signal where a signal ended it), or 127
// where the program could not be started.
// Every error is exactly one line on `err`, starting with "ucudnn: error: ".

#include <ostream>
#include <string>
#include <vector>

namespace ucudnn::tools {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDataError = 1;
inline constexpr int kExitUsageError = 2;
inline constexpr int kExitCannotRun = 127;  ///< `ucudnn run`: the program could not be started

/// Runs the command line `args` (without the program name); never throws.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace ucudnn::tools
