#include "optimize/pareto.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <utility>

namespace ucudnn {

// Why solving WR once per distinct workspace value is exact: take any cover C of the batch, and
// let w be the largest workspace among its rows. Every row of C fits under the limit w, so C is
// one of the plans WR(w) chooses from, and WR(w) is at least as fast as C while needing at most
// w. Every Pareto-optimal (time, workspace) point is therefore reached by WR at its own
// workspace, and pruning the WR plans to their front gives the whole front and nothing else.
std::vector<WrPlan> desirable_configurations(int batch, const std::vector<int>& allowed_sizes,
                                             const std::vector<Measurement>& rows) {
  // Only rows the WR program could use contribute limits worth trying.
  std::set<std::size_t> limits;
  for (const auto& row : rows) {
    const bool allowed = std::find(allowed_sizes.begin(), allowed_sizes.end(), row.micro_batch) !=
                         allowed_sizes.end();
    if (allowed && row.micro_batch > 0 && row.micro_batch <= batch) {
      limits.insert(row.workspace_bytes);
    }
  }

  std::vector<WrPlan> plans;
  for (std::size_t limit : limits) {
    auto plan = optimize_wr(batch, allowed_sizes, rows, limit);
    if (plan) plans.push_back(std::move(*plan));
  }

  // Least workspace first; then the fastest, then the fewest micro-batches. A sweep that keeps a
  // plan only when it is strictly faster than the last kept one then leaves exactly the front,
  // and of exact ties the plan with fewer micro-batches.
  std::sort(plans.begin(), plans.end(), [](const WrPlan& a, const WrPlan& b) {
    return std::make_tuple(a.workspace_bytes, a.time_ms, a.micro_batch_count()) <
           std::make_tuple(b.workspace_bytes, b.time_ms, b.micro_batch_count());
  });
  std::vector<WrPlan> front;
  for (auto& plan : plans) {
    if (front.empty() || plan.time_ms < front.back().time_ms) front.push_back(std::move(plan));
  }
  return front;
}

}  // namespace ucudnn
