#include "core/logging.h"

#include "core/env_config.h"

#include <cstdio>
#include <mutex>
#include <set>

namespace ucudnn {
namespace {

struct Logger {
  LogLevel level = LogLevel::kWarn;
  FILE* sink = stderr;
  std::mutex mutex;
  std::set<std::string> warned;

  // From the process configuration; where it is invalid, cudnnCreate and the tools report it
  // and the log keeps its defaults.
  Logger() {
    const auto& config = env_config();
    if (!config) return;
    level = config->log_level;
    if (!config->log_file.empty()) {
      if (FILE* f = std::fopen(config->log_file.c_str(), "a")) {
        sink = f;
      } else {
        std::fprintf(stderr, "ucudnn: warning: cannot open UCUDNN_LOG_FILE='%s'; logging to stderr\n",
                     config->log_file.c_str());
      }
    }
  }
};

Logger& logger() {
  static Logger instance;
  return instance;
}

const char* level_name(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return "error";
    case LogLevel::kWarn: return "warning";
    case LogLevel::kInfo: return "info";
    case LogLevel::kDebug: return "debug";
    case LogLevel::kOff: break;
  }
  return "";
}

}  // namespace

bool detail::log_enabled(LogLevel level) {
  return level != LogLevel::kOff && static_cast<int>(level) <= static_cast<int>(logger().level);
}

void detail::log_message(LogLevel level, const std::string& message) {
  Logger& log = logger();
  std::lock_guard<std::mutex> lock(log.mutex);
  std::fprintf(log.sink, "ucudnn: %s: %s\n", level_name(level), message.c_str());
  std::fflush(log.sink);
}

void warn_once(const std::string& key, const std::string& message) {
  if (!detail::log_enabled(LogLevel::kWarn)) return;
  {
    std::lock_guard<std::mutex> lock(logger().mutex);
    if (!logger().warned.insert(key).second) return;
  }
  detail::log_message(LogLevel::kWarn, message);
}

}  // namespace ucudnn
