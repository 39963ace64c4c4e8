#include "core/logging.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>

namespace ucudnn {
namespace {

struct Logger {
  LogLevel level = LogLevel::kWarn;
  FILE* sink = stderr;
  std::mutex mutex;
  std::set<std::string> warned;

  Logger() {
    std::string problem;
    if (const char* text = std::getenv("UCUDNN_LOG_LEVEL")) {
      std::string v;
      for (const char* p = text; *p; ++p) v.push_back(static_cast<char>(std::tolower(*p)));
      if (v == "off" || v == "0") level = LogLevel::kOff;
      else if (v == "error" || v == "1") level = LogLevel::kError;
      else if (v == "warn" || v == "warning" || v == "2") level = LogLevel::kWarn;
      else if (v == "info" || v == "3") level = LogLevel::kInfo;
      else if (v == "debug" || v == "4") level = LogLevel::kDebug;
      else problem = std::string("UCUDNN_LOG_LEVEL='") + text + "' is not off, error, warn, info or debug; using warn";
    }
    if (const char* path = std::getenv("UCUDNN_LOG_FILE"); path && *path) {
      if (FILE* f = std::fopen(path, "a")) {
        sink = f;
      } else {
        problem = std::string("cannot open UCUDNN_LOG_FILE='") + path + "'; logging to stderr";
      }
    }
    if (!problem.empty()) std::fprintf(stderr, "ucudnn: warning: %s\n", problem.c_str());
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

bool log_enabled(LogLevel level) {
  return level != LogLevel::kOff && static_cast<int>(level) <= static_cast<int>(logger().level);
}

void log_message(LogLevel level, const std::string& message) {
  Logger& log = logger();
  std::lock_guard<std::mutex> lock(log.mutex);
  std::fprintf(log.sink, "ucudnn: %s: %s\n", level_name(level), message.c_str());
  std::fflush(log.sink);
}

void warn_once(const std::string& key, const std::string& message) {
  if (!log_enabled(LogLevel::kWarn)) return;
  {
    std::lock_guard<std::mutex> lock(logger().mutex);
    if (!logger().warned.insert(key).second) return;
  }
  log_message(LogLevel::kWarn, message);
}

}  // namespace ucudnn
