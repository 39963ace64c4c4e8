#include "optimize/pareto.h"

#include <algorithm>
#include <sstream>
#include <tuple>
#include <utility>

#include "optimize/wr_recurrence.h"

namespace ucudnn::optimize {
namespace {

// The rows the WR program could use (an allowed size within the batch), least workspace first;
// rows of equal workspace keep the table's order, as fastest_within breaks exact ties.
std::vector<const Measurement*> usable_rows_by_workspace(int batch, const std::vector<int>& slot,
                                                         const std::vector<Measurement>& rows) {
  std::vector<const Measurement*> usable;
  for (const auto& row : rows) {
    if (row.micro_batch > 0 && row.micro_batch <= batch && slot[row.micro_batch] >= 0) usable.push_back(&row);
  }
  std::stable_sort(usable.begin(), usable.end(), [](const Measurement* a, const Measurement* b) {
    return a->workspace_bytes < b->workspace_bytes;
  });
  return usable;
}

// Least workspace first; then the fastest, then the fewest micro-batches. A sweep that keeps a
// plan only when it is strictly faster than the last kept one then leaves exactly the front, and
// of exact ties the plan with fewer micro-batches.
std::vector<MicroBatchSplit> pruned_to_front(std::vector<MicroBatchSplit> plans) {
  std::sort(plans.begin(), plans.end(), [](const MicroBatchSplit& a, const MicroBatchSplit& b) {
    return std::make_tuple(a.workspace_bytes, a.time_ms, a.micro_batch_count()) <
           std::make_tuple(b.workspace_bytes, b.time_ms, b.micro_batch_count());
  });
  std::vector<MicroBatchSplit> front;
  for (auto& plan : plans) {
    if (front.empty() || plan.time_ms < front.back().time_ms) front.push_back(std::move(plan));
  }
  return front;
}

}  // namespace

// Why solving WR at each distinct workspace value is exact: take any cover C of the batch, and
// let w be the largest workspace among its rows. Every row of C fits under the limit w, so C is
// one of the plans WR(w) chooses from, and WR(w) is at least as fast as C while needing at most
// w. Every Pareto-optimal (time, workspace) point is therefore reached by WR at its own
// workspace, and pruning the WR plans to their front gives the whole front and nothing else.
//
// WR(w) depends only on the fastest row of each size within w. Sweeping the rows in order of
// workspace keeps those up to date in constant time per row; where a group of equal workspace
// changes none of them, WR(w) is the plan already found, so the program is not solved again. Where
// it changes some, T(b) below the smallest size changed is as it was, so only the rest is solved.
std::vector<MicroBatchSplit> desirable_configurations(int batch, const std::vector<int>& allowed_sizes,
                                             const std::vector<Measurement>& rows, FrontWork* work,
                                             std::optional<std::chrono::steady_clock::time_point> deadline) {
  FrontWork local;
  FrontWork& counted = work ? *work : local;
  counted = FrontWork{};
  if (batch <= 0) return {};

  std::vector<int> slot(static_cast<std::size_t>(batch) + 1, -1);  // size -> index in `fastest`
  std::vector<int> slot_sizes;
  for (int size : allowed_sizes) {
    if (size <= 0 || size > batch || slot[size] >= 0) continue;
    slot[size] = static_cast<int>(slot_sizes.size());
    slot_sizes.push_back(size);
  }
  const std::vector<const Measurement*> usable = usable_rows_by_workspace(batch, slot, rows);
  counted.rows_used = usable.size();

  // The fastest row so far of each allowed size: the WR program's candidates, in allowed order.
  std::vector<const Measurement*> fastest(slot_sizes.size(), nullptr);
  WrRecurrence program(batch, std::move(slot_sizes));
  std::vector<MicroBatchSplit> plans;
  for (std::size_t begin = 0; begin < usable.size();) {
    std::size_t end = begin;
    int smallest_changed = batch + 1;
    for (; end < usable.size() && usable[end]->workspace_bytes == usable[begin]->workspace_bytes; ++end) {
      const Measurement& row = *usable[end];
      const int s = slot[row.micro_batch];
      if (!fastest[s] || row.cost_ms() < fastest[s]->cost_ms()) {  // equal cost, more workspace: no better
        fastest[s] = &row;
        program.set_cost(s, row.cost_ms());
        smallest_changed = std::min(smallest_changed, row.micro_batch);
      }
    }
    begin = end;
    if (smallest_changed > batch) continue;
    // A solve costs microseconds to a second (65,536 sizes): the clock is cheap beside it.
    if (deadline && std::chrono::steady_clock::now() >= *deadline) {
      counted.past_deadline = true;
      return {};
    }
    ++counted.wr_solves;
    program.solve_from(smallest_changed);
    if (program.reachable(batch)) plans.push_back(split_of(program, fastest, CallPricing::kIssued));
  }
  return pruned_to_front(std::move(plans));
}

Error front_past_time_limit(double limit_seconds) {
  std::ostringstream text;
  text << "workspace division: the kernels' fronts of (time, workspace) plans took longer than the time limit of "
       << limit_seconds << " s (UCUDNN_WD_TIME_LIMIT, ucudnn plan --time-limit): rows at many micro-batch sizes, "
       << "each size with workspaces of its own, cost a WR solve per row; use the powerOfTwo policy or a longer limit";
  return Error::time_limit(text.str());
}

}  // namespace ucudnn::optimize
