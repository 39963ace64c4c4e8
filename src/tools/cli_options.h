#pragma once
// What every subcommand of the `ucudnn` command shares: its exit statuses and its integer options.
// The commands include this, never tools/cli.h (the dispatcher that includes them).
//
// Exit statuses:
//   0  success (also `--help`)
//   1  data error: the measurements file is missing, unreadable or malformed, or a kernel has
//      no algorithm (or no plan) within the workspace limit
//   2  usage error: unknown subcommand or option, missing required option, bad size or policy
// `ucudnn run` becomes its program (exec): its exit is the program's, status or signal; it exits
// 127 where the program could not be started.
// Every error is exactly one line on `err`, starting with "ucudnn: error: ".
// Every integer option is declared by add_integer_option: strictly decimal, or a usage error.

#include <string>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace ucudnn::tools {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDataError = 1;
inline constexpr int kExitUsageError = 2;
inline constexpr int kExitCannotRun = 126;  ///< `ucudnn run`: the program was found but could not be run
inline constexpr int kExitNotFound = 127;   ///< `ucudnn run`: the program (or its interpreter) was not found

/// Why `text` is not an integer written the one decimal way, or "" where it is: digits only,
/// no leading zero but in "0" itself, no 0x/0b/0o prefix, no whitespace, nothing after the
/// digits, a value that fits in an int; a leading '-' only where `negative_allowed` (never "-0",
/// never '+'). CLI11 alone reads integers as strtol with base 0 does: "0132" is octal 90 and
/// "0x5A" is 90, so a GPU identity could be filed under a number nobody wrote.
std::string decimal_integer_error(const std::string& text, bool negative_allowed);

/// Declares the integer option `name` of `command` into `value`, held to decimal_integer_error's
/// rule: any other spelling is a usage error naming the option and the value. Every integer
/// option of the `ucudnn` command is declared by it.
CLI::Option* add_integer_option(CLI::App* command, const std::string& name, int& value, const std::string& description,
                                bool negative_allowed = false);

}  // namespace ucudnn::tools
