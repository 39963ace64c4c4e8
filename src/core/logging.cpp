#include "core/logging.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>

namespace ucudnn {
namespace {

// Warn on stderr until configure_logging says otherwise.
struct Logger {
  std::atomic<LogLevel> level{LogLevel::kWarn};
  FILE* sink = stderr;  ///< guarded by `mutex`
  std::mutex mutex;
  std::set<std::string> warned;
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

void configure_logging(LogLevel level, const std::string& file) {
  Logger& log = logger();
  FILE* sink = stderr;
  if (!file.empty()) {
    sink = std::fopen(file.c_str(), "a");
    if (!sink) {
      std::fprintf(stderr, "ucudnn: warning: cannot open UCUDNN_LOG_FILE='%s'; logging to stderr\n", file.c_str());
      sink = stderr;
    }
  }
  {
    std::lock_guard<std::mutex> lock(log.mutex);
    if (log.sink != stderr) std::fclose(log.sink);
    log.sink = sink;
  }
  log.level.store(level);
}

bool detail::log_enabled(LogLevel level) {
  return level != LogLevel::kOff && static_cast<int>(level) <= static_cast<int>(logger().level.load());
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
