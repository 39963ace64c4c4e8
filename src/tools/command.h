#pragma once
// What every subcommand shares: how it runs once parsed, and how it reports an error.

#include <functional>
#include <ostream>
#include <string>

#include "core/expected.h"

namespace ucudnn::tools {

/// A subcommand's work after CLI11 has parsed its options; returns the exit status.
using CommandRunner = std::function<int(std::ostream& out, std::ostream& err)>;

/// Writes "ucudnn: error: MESSAGE" as a single line (line breaks in MESSAGE become spaces)
/// and returns `status`, so that callers can `return report_error(...)`.
int report_error(std::ostream& err, int status, const std::string& message);

/// The benchmark database a command uses: `option` (its --database) if given, else
/// UCUDNN_DATABASE of the process configuration (core/env_config.h). An error (a usage error
/// for the caller) where neither names one, or where the configuration is invalid: then the
/// message names the variable.
Expected<std::string> database_path(const std::string& option);

}  // namespace ucudnn::tools
