#pragma once
// What every subcommand shares: how it runs once parsed, and how it reports an error.

#include <functional>
#include <ostream>
#include <string>

namespace ucudnn {

/// A subcommand's work after CLI11 has parsed its options; returns the exit status.
using CommandRunner = std::function<int(std::ostream& out, std::ostream& err)>;

/// Writes "ucudnn: error: MESSAGE" as a single line (line breaks in MESSAGE become spaces)
/// and returns `status`, so that callers can `return report_error(...)`.
int report_error(std::ostream& err, int status, const std::string& message);

}  // namespace ucudnn
