#pragma once
// Process-wide counters of what ucudnn did, per operation: how many convolutions it intercepted,
// how many ran split into micro-batches or as replayed graphs, how many fell back to plain cuDNN, and the time spent
// planning (benchmarking and solving apart). Lock-free; read by ucudnnGetStatistics and printed at
// exit when UCUDNN_STATS=1, so a user can see that it worked.

#include <array>
#include <atomic>
#include <string>

#include "core/conv_op.h"

namespace ucudnn {

struct OpCounters {
  long long convolution_calls = 0;  ///< convolution calls intercepted
  long long split_calls = 0;        ///< ... that ran as more than one micro-batch
  long long replayed_calls = 0;     ///< ... that ran as a replayed CUDA graph
  long long captures = 0;           ///< CUDA graphs captured (each also counts as replayed)
  double capture_seconds = 0;       ///< host time spent capturing and instantiating them
  long long plain_calls = 0;        ///< ... that ran as plain cuDNN (planning failed, or the caller
                                    ///< chose a real algorithm over the offered plan)
  long long algorithm_queries = 0;  ///< get/find calls intercepted
  long long timings = 0;            ///< candidate timings run by the benchmarker
  double benchmark_seconds = 0;     ///< measuring (database lookups included)
  double solve_seconds = 0;         ///< WR dynamic programs and WD integer programs
};

class Statistics {
 public:
  static Statistics& instance();

  void count_execution(ConvOp op, int micro_batches, bool replayed = false);
  void add_capture(ConvOp op, double seconds);
  void count_plain(ConvOp op);
  void count_query(ConvOp op);
  void add_benchmarking(ConvOp op, double seconds, long long timings);
  void add_solving(ConvOp op, double seconds);
  /// A workspace division's integer program (all operations together).
  void add_division(double seconds);

  OpCounters read(ConvOp op) const;
  long long divisions() const { return divisions_.load(); }
  double division_seconds() const { return static_cast<double>(division_ns_.load()) * 1e-9; }
  /// A few lines per operation, for UCUDNN_STATS.
  std::string report() const;
  /// Prints report() to stderr at exit (once, however often it is called).
  void print_at_exit();

 private:
  struct Atomics {
    std::atomic<long long> convolution_calls{0}, split_calls{0}, replayed_calls{0}, plain_calls{0}, algorithm_queries{0}, timings{0};
    std::atomic<long long> benchmark_ns{0}, solve_ns{0}, captures{0}, capture_ns{0};
  };
  std::array<Atomics, 3> ops_;
  std::atomic<long long> divisions_{0}, division_ns_{0};
  std::atomic<bool> exit_hook_{false};
};

}  // namespace ucudnn
