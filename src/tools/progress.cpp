#include "tools/progress.h"

#include <unistd.h>

#include <cmath>

namespace ucudnn::tools {

std::string format_duration(double seconds) {
  const long total = std::lround(std::max(0.0, seconds));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld", total / 60, total % 60);
  return buf;
}

Progress::Progress(std::FILE* stream, int total, std::string unit)
    : stream_(stream),
      total_(total),
      unit_(std::move(unit)),
      terminal_(isatty(fileno(stream)) != 0),
      started_(std::chrono::steady_clock::now()) {}

double Progress::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void Progress::step(const std::string& what) {
  ++done_;
  const double elapsed = elapsed_seconds();
  const double eta = done_ > 0 ? elapsed / done_ * (total_ - done_) : 0.0;
  if (terminal_) {
    constexpr int kWidth = 30;
    const int filled = total_ > 0 ? kWidth * done_ / total_ : kWidth;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(kWidth, '.');
    std::fprintf(stream_, "\r[%s] %d/%d %s, %s elapsed, ETA %s  %-28.28s", bar.c_str(), done_, total_, unit_.c_str(),
                 format_duration(elapsed).c_str(), format_duration(eta).c_str(), what.c_str());
  } else {
    std::fprintf(stream_, "%d/%d %s done (%s), %s elapsed, ETA %s\n", done_, total_, unit_.c_str(), what.c_str(),
                 format_duration(elapsed).c_str(), format_duration(eta).c_str());
  }
  std::fflush(stream_);
}

void Progress::finish() {
  if (terminal_) std::fprintf(stream_, "\n");
  std::fflush(stream_);
}

}  // namespace ucudnn::tools
