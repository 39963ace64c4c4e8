#include "optimize/size_search.h"

#include <algorithm>
#include <limits>
#include <set>

#include "optimize/wr_optimizer.h"

namespace ucudnn::optimize {

std::vector<int> search_ladder(const std::vector<int>& sizes, BatchSizePolicy policy) {
  std::vector<int> ladder(sizes.begin(), sizes.end());
  std::sort(ladder.rbegin(), ladder.rend());
  ladder.erase(std::unique(ladder.begin(), ladder.end()), ladder.end());
  if (policy != BatchSizePolicy::kAll || ladder.empty()) return ladder;
  // Every size down to 1: take the largest allowed size at or below half of the last one taken.
  std::vector<int> halving = {ladder.front()};
  const std::set<int> allowed(ladder.begin(), ladder.end());
  while (halving.back() > 1) {
    const int half = (halving.back() + 1) / 2;
    auto it = allowed.upper_bound(half);
    if (it == allowed.begin()) break;
    const int next = *std::prev(it);
    if (next >= halving.back()) break;
    halving.push_back(next);
  }
  return halving;
}

std::vector<int> shared_size_ladder(const std::vector<int>& sizes, int batch) {
  std::vector<int> ladder;
  for (int size : sizes) {
    if (size > 0 && size <= batch && (size & (size - 1)) == 0) ladder.push_back(size);
  }
  std::sort(ladder.rbegin(), ladder.rend());
  ladder.erase(std::unique(ladder.begin(), ladder.end()), ladder.end());
  return ladder;
}

bool smaller_sizes_may_help(int batch, const std::vector<int>& measured_sizes, const std::vector<Measurement>& rows,
                            std::size_t workspace_limit, CallPricing pricing, double margin) {
  if (measured_sizes.empty()) return true;
  const int smallest = *std::min_element(measured_sizes.begin(), measured_sizes.end());
  double best_at_smallest = std::numeric_limits<double>::infinity();
  for (const Measurement& m : rows) {
    if (m.micro_batch == smallest) best_at_smallest = std::min(best_at_smallest, m.cost_ms(pricing));
  }
  if (best_at_smallest == std::numeric_limits<double>::infinity()) return true;
  const auto plan = optimize_wr(batch, measured_sizes, rows, workspace_limit, pricing);
  if (!plan) return true;
  const double best_possible = static_cast<double>(batch) * best_at_smallest / smallest;
  return plan->time_ms > best_possible * (1 + margin);
}

}  // namespace ucudnn::optimize
