#pragma once
// Progress of a long command: a bar redrawn in place on a terminal (done of total, elapsed, ETA),
// one plain line per step otherwise (logs, CI).

#include <chrono>
#include <cstdio>
#include <string>

namespace ucudnn::tools {

class Progress {
 public:
  /// Reports on `stream` (a terminal gets the bar).
  Progress(std::FILE* stream, int total, std::string unit);
  /// One more step done; `what` names it.
  void step(const std::string& what);
  /// Ends the bar's line.
  void finish();
  double elapsed_seconds() const;

 private:
  std::FILE* stream_;
  int total_;
  int done_ = 0;
  std::string unit_;
  bool terminal_;
  std::chrono::steady_clock::time_point started_;
};

/// "1:05" style minutes:seconds.
std::string format_duration(double seconds);

}  // namespace ucudnn::tools
