#pragma once
// Levelled logging, chosen at run time: the level and file are handed over by configure_logging
// (core/env_config.cpp does, from UCUDNN_LOG_LEVEL and UCUDNN_LOG_FILE, when it reads the
// environment); until then warn, on stderr, so a working program prints nothing. A message's
// text is only built when its level is enabled.

#include <sstream>
#include <string>

namespace ucudnn {

enum class LogLevel { kOff = 0, kError = 1, kWarn = 2, kInfo = 3, kDebug = 4 };

namespace detail {
// What the UCUDNN_LOG macros call; code logs through the macros.
bool log_enabled(LogLevel level);
void log_message(LogLevel level, const std::string& message);
}  // namespace detail

/// Logs at `level` and above from now on, to `file` (appended to; empty: stderr). A file that
/// cannot be opened leaves stderr, with a warning there.
void configure_logging(LogLevel level, const std::string& file);

/// Logs a warning the first time `key` is seen in this process, then stays silent for it.
void warn_once(const std::string& key, const std::string& message);

}  // namespace ucudnn

#define UCUDNN_LOG(level, stream_expr)                                \
  do {                                                                \
    if (::ucudnn::detail::log_enabled(level)) {                       \
      std::ostringstream ucudnn_log_stream_;                          \
      ucudnn_log_stream_ << stream_expr;                              \
      ::ucudnn::detail::log_message(level, ucudnn_log_stream_.str()); \
    }                                                                 \
  } while (0)

#define UCUDNN_LOG_ERROR(x) UCUDNN_LOG(::ucudnn::LogLevel::kError, x)
#define UCUDNN_LOG_WARN(x) UCUDNN_LOG(::ucudnn::LogLevel::kWarn, x)
#define UCUDNN_LOG_INFO(x) UCUDNN_LOG(::ucudnn::LogLevel::kInfo, x)
#define UCUDNN_LOG_DEBUG(x) UCUDNN_LOG(::ucudnn::LogLevel::kDebug, x)
