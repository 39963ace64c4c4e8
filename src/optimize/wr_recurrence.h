#pragma once
// The WR program's recurrence (optimize/wr_optimizer.h) over plain arrays of numbers:
//
//   T(0) = 0,  T(b) = min over candidates c of size(c) <= b of  T(b - size(c)) + cost(c)
//
// ties going to fewer calls, then to the earlier candidate. Sizes and costs are copied once, out
// of the rows, so the inner loop reads numbers only. Where each size has at most one candidate
// and the candidates are many (the `all` policy), T(b) is the least of T(j) + cost(b - j) over
// j < b: two contiguous arrays (the costs are stored from the largest size down), which the
// compiler turns into vector instructions. Otherwise the candidates are scanned in order.

#include <vector>

#include "core/measurement.h"
#include "optimize/micro_batch_split.h"

namespace ucudnn::optimize {

class WrRecurrence {
 public:
  /// Candidate i runs micro-batches of `sizes[i]`; the order breaks ties. A size outside
  /// 1..batch is never used. No candidate is usable until it has a cost.
  WrRecurrence(int batch, std::vector<int> sizes);

  /// Makes candidate i usable at `cost` per call (the cost may change between solves).
  void set_cost(int candidate, double cost);

  /// Solves T(b) for b = from..batch. T below `from` is kept: it changes only with the
  /// candidates of sizes below `from`, which must be as they were at the last solve.
  void solve_from(int from);

  int batch() const { return batch_; }
  /// Whether some usable candidates add up to b.
  bool reachable(int b) const;
  /// The candidate of T(b)'s last micro-batch (-1: unreachable).
  int last(int b) const { return last_[b]; }

 private:
  void solve_by_candidate(int b);
  void solve_by_size(int b);
  bool by_size() const;

  int batch_;
  std::vector<int> size_;
  std::vector<double> cost_;
  std::vector<char> usable_;
  int sized_candidates_ = 0;  // candidates of a size within 1..batch
  bool one_per_size_ = true;  // no two of those share a size
  int irregular_costs_ = 0;   // usable costs that are NaN or negative: their sums may be NaN, whose
                              // ties only the scan in order breaks as it always has
  // By size, from the largest down: index batch - s holds size s (cost +infinity: none).
  std::vector<double> cost_from_largest_;
  std::vector<int> candidate_from_largest_;
  // T(b), its number of calls and its last candidate.
  std::vector<double> time_;
  std::vector<int> calls_;
  std::vector<int> last_;
  std::vector<double> block_least_;  // scratch of solve_by_size
};

/// The split T(program.batch()) stands for, candidate i being `rows[i]`, each call priced by
/// `pricing`. The batch must be reachable.
MicroBatchSplit split_of(const WrRecurrence& program, const std::vector<const Measurement*>& rows,
                         CallPricing pricing);

}  // namespace ucudnn::optimize
