#pragma once
// Process-wide counters of what ucudnn did, per operation: how many convolutions it intercepted,
// how many ran split into micro-batches or as replayed graphs, how many fell back to plain cuDNN, and the time spent
// planning (benchmarking and solving apart), and where the search's time went (SearchPhase).
// Lock-free; read by ucudnnGetStatistics and ucudnnGetSearchStatistics and printed at exit when
// UCUDNN_STATS=1, so a user can see that it worked.

#include <array>
#include <atomic>
#include <chrono>
#include <string>

#include "core/conv_op.h"

namespace ucudnn {

struct OpCounters {
  long long convolution_calls = 0;  ///< convolution calls intercepted
  long long split_calls = 0;        ///< ... that ran as more than one micro-batch
  long long replayed_calls = 0;     ///< ... that ran as a replayed CUDA graph
  long long channel_piece_calls = 0;  ///< ... whose plan cut the output channels into pieces
  long long fp32_sum_calls = 0;     ///< ... whose micro-batches were summed in FP32 (half-precision
                                    ///< backward filter)
  long long padded_input_calls = 0;  ///< ... that ran on the input padded with zero channels
  long long captures = 0;           ///< CUDA graphs captured (each also counts as replayed)
  double capture_seconds = 0;       ///< host time spent capturing and instantiating them
  long long plain_calls = 0;        ///< ... that ran as plain cuDNN (planning failed, or the caller
                                    ///< chose a real algorithm over the offered plan)
  long long algorithm_queries = 0;  ///< get/find calls intercepted
  long long timings = 0;            ///< candidate timings run by the benchmarker
  double benchmark_seconds = 0;     ///< measuring (database lookups included)
  double solve_seconds = 0;         ///< WR dynamic programs and WD integer programs
};

/// What one convolution call ran as.
struct ExecutedSplit {
  int micro_batches = 1;
  bool channel_pieces = false;  ///< some micro-batch ran in output-channel pieces
  bool fp32_sums = false;       ///< the micro-batches' filter gradients were summed in FP32
  bool padded_input = false;    ///< the calls ran on the input padded with zero channels
};

/// Where a search spends its time: each is timed where it happens (runtime/), per operation.
enum class SearchPhase {
  kSetup,       ///< buffers, random fill, workspace allocation, descriptors
  kHeuristics,  ///< cuDNN's heuristics: engine offers, legacy algorithm lists, validation
  kFind,        ///< cudnnFind*AlgorithmEx (the legacy candidates of the exhaustive search)
  kPlanBuild,   ///< engine execution plans built to be measured (cudnnBackendFinalize)
  kTiming,      ///< warm-up and timed calls
  kDatabase,    ///< lookups and stores in the benchmark databases
  kCount
};

/// What a search did, beside its time: counted where it happens.
enum class SearchCount {
  kPlansBuilt,       ///< engine execution plans built to be measured
  kTimedInFull,      ///< candidates timed with every sample
  kCutShort,         ///< candidates whose timing stopped early: they could not beat a known one
  kNotTimed,         ///< candidates offered but not timed (the fast search's bound)
  kSizesMeasured,    ///< micro-batch sizes measured
  kSizesSkipped,     ///< micro-batch sizes the fast search found could not improve the plan
  kNewBatchSizes,    ///< batch sizes planned over the powers of two other batch sizes measured
  kCount
};

struct SearchCounters {
  std::array<double, static_cast<int>(SearchPhase::kCount)> seconds{};
  std::array<long long, static_cast<int>(SearchCount::kCount)> counts{};
  double phase(SearchPhase p) const { return seconds[static_cast<int>(p)]; }
  long long count(SearchCount c) const { return counts[static_cast<int>(c)]; }
};

/// Which front-ends reached ucudnn, and what the graph-API front-end did with the plans it saw.
struct FrontEndCounters {
  long long legacy_calls = 0;           ///< legacy-API calls intercepted (get/find, workspace, convolution)
  long long graph_plans_intercepted = 0;  ///< execution plans of one convolution, followed by ucudnn
  long long graph_plans_kept = 0;  ///< of those, kept as the program built them (their workspace fits the limit or memory budget)
  long long graph_plans_passed = 0;     ///< the program's other plans, left to cuDNN
  long long graph_executions = 0;       ///< executions of intercepted plans
  long long dlopen_redirects = 0;       ///< dlopen calls of cuDNN answered with ucudnn's layer
  long long graph_offers = 0;           ///< micro-batch offers added to heuristics results
  long long graph_offers_planned = 0;   ///< offered plans the program built and ucudnn planned
};

class Statistics {
 public:
  void count_legacy_call();
  void count_graph_plan(bool intercepted);
  void count_graph_plan_kept();
  void count_graph_offer();
  void count_graph_offer_planned();
  void count_graph_execution();
  void count_dlopen_redirect();
  FrontEndCounters read_front_ends() const;

  static Statistics& instance();

  void count_execution(ConvOp op, const ExecutedSplit& split, bool replayed = false);
  void add_capture(ConvOp op, double seconds);
  void count_plain(ConvOp op);
  void count_query(ConvOp op);
  void add_benchmarking(ConvOp op, double seconds, long long timings);
  void add_solving(ConvOp op, double seconds);
  void add_search_time(ConvOp op, SearchPhase phase, double seconds);
  void count_search(ConvOp op, SearchCount what, long long n = 1);
  SearchCounters read_search(ConvOp op) const;
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
    std::atomic<long long> convolution_calls{0}, split_calls{0}, replayed_calls{0}, plain_calls{0},
        algorithm_queries{0}, timings{0}, channel_piece_calls{0}, fp32_sum_calls{0}, padded_input_calls{0};
    std::atomic<long long> benchmark_ns{0}, solve_ns{0}, captures{0}, capture_ns{0};
    std::array<std::atomic<long long>, static_cast<int>(SearchPhase::kCount)> search_ns{};
    std::array<std::atomic<long long>, static_cast<int>(SearchCount::kCount)> search_counts{};
  };
  std::array<Atomics, 3> ops_;
  std::atomic<long long> divisions_{0}, division_ns_{0};
  std::atomic<long long> legacy_calls_{0}, graph_intercepted_{0}, graph_passed_{0}, graph_kept_{0}, graph_offers_{0}, graph_offers_planned_{0},
      graph_executions_{0}, dlopen_redirects_{0};
  std::atomic<bool> exit_hook_{false};
};

/// Adds the time from construction to destruction to one search phase.
class SearchPhaseClock {
 public:
  SearchPhaseClock(ConvOp op, SearchPhase phase)
      : op_(op), phase_(phase), started_(std::chrono::steady_clock::now()) {}
  ~SearchPhaseClock() {
    Statistics::instance().add_search_time(
        op_, phase_, std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count());
  }
  SearchPhaseClock(const SearchPhaseClock&) = delete;
  SearchPhaseClock& operator=(const SearchPhaseClock&) = delete;

 private:
  ConvOp op_;
  SearchPhase phase_;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace ucudnn
