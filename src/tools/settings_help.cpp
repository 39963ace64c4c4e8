#include "tools/settings_help.h"

#include <algorithm>
#include <cstring>

#include "core/env_config.h"

namespace ucudnn::tools {

std::string settings_help() {
  std::vector<std::string> every;
  for (const SettingRow& row : setting_rows()) every.emplace_back(row.name);
  return settings_help(every);
}

std::string settings_help(const std::vector<std::string>& names) {
  const auto listed = [&](const SettingRow& row) {
    return std::find(names.begin(), names.end(), row.name) != names.end();
  };
  std::size_t width = 0;
  for (const SettingRow& row : setting_rows()) {
    if (listed(row)) width = std::max(width, std::strlen(row.name));
  }
  std::string text = "Settings (environment variables, read once per process; README.md#settings says more):\n";
  for (const SettingRow& row : setting_rows()) {
    if (!listed(row)) continue;
    text += "  " + std::string(row.name) + std::string(width - std::strlen(row.name) + 2, ' ') + row.meaning +
            " (default: " + row.default_text + ")\n";
  }
  return text;
}

std::string setting_default(const std::string& name) {
  for (const SettingRow& row : setting_rows()) {
    if (row.name == name) return name + ", else " + row.default_text;
  }
  return name;  // a caller's typo shows as the bare name; tests/cpu/tools checks every use
}

}  // namespace ucudnn::tools
