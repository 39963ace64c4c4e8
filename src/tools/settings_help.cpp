#include "tools/settings_help.h"

#include <algorithm>
#include <cstring>

#include "core/env_config.h"

namespace ucudnn::tools {

std::string settings_help() {
  std::size_t width = 0;
  for (const SettingRow& row : setting_rows()) width = std::max(width, std::strlen(row.name));
  std::string text = "Settings (environment variables, read once per process; README.md#settings says more):\n";
  for (const SettingRow& row : setting_rows()) {
    text += "  " + std::string(row.name) + std::string(width - std::strlen(row.name) + 2, ' ') + row.meaning +
            " (default: " + row.default_text + ")\n";
  }
  return text;
}

}  // namespace ucudnn::tools
