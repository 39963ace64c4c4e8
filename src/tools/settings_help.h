#pragma once
// The settings part of `ucudnn --help`: the UCUDNN_* variables, their meanings and defaults, from
// the one table of them (core/env_config.h: setting_rows), so that the list never drifts.

#include <string>
#include <vector>

namespace ucudnn::tools {

/// "Settings (environment variables): ..." then one line per variable: name, meaning, default;
/// every variable, or only those `names` lists (in the table's order).
std::string settings_help();
std::string settings_help(const std::vector<std::string>& names);

/// "UCUDNN_X, else DEFAULT": how an option's help says that a setting gives its default, the
/// default as the setting's row writes it.
std::string setting_default(const std::string& name);

}  // namespace ucudnn::tools
