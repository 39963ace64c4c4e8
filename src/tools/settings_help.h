#pragma once
// The settings part of `ucudnn --help`: every UCUDNN_* variable, its meaning and its default, from
// the one table of them (core/env_config.h: setting_rows), so that the list never drifts.

#include <string>

namespace ucudnn::tools {

/// "Settings (environment variables): ..." then one line per variable: name, meaning, default.
std::string settings_help();

}  // namespace ucudnn::tools
