#include "tools/command.h"

#include "core/env_config.h"

namespace ucudnn::tools {

int report_error(std::ostream& err, int status, const std::string& message) {
  // Scripts and tests rely on one line per error, whatever the message carries.
  std::string line = message;
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  err << "ucudnn: error: " << line << '\n';
  return status;
}

Expected<std::string> database_path(const std::string& option) {
  const Expected<Settings>& config = env_config();
  UCUDNN_TRY(config);
  const std::string& path = option.empty() ? config->database : option;
  if (path.empty()) return Error::invalid("--database is required (or set UCUDNN_DATABASE)");
  return path;
}

}  // namespace ucudnn::tools
