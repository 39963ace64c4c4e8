#include "optimize/wr_optimizer.h"

#include <algorithm>
#include <utility>

#include "optimize/wr_recurrence.h"

namespace ucudnn::optimize {

namespace {

// Whether `row` should replace `best` as the measurement its size runs: cheaper, or as cheap with
// less workspace (the first of equal rows stays).
bool better(const Measurement& row, const Measurement* best, CallPricing pricing) {
  return !best || row.cost_ms(pricing) < best->cost_ms(pricing) ||
         (row.cost_ms(pricing) == best->cost_ms(pricing) && row.workspace_bytes < best->workspace_bytes);
}

// The WR program over `candidates` (see optimize_wr_over), each call priced once.
std::optional<MicroBatchSplit> solve_over(int batch, const std::vector<const Measurement*>& candidates,
                                          CallPricing pricing) {
  if (batch <= 0) return std::nullopt;
  std::vector<int> sizes;
  sizes.reserve(candidates.size());
  for (const Measurement* m : candidates) sizes.push_back(m->micro_batch);
  WrRecurrence program(batch, std::move(sizes));
  for (int i = 0; i < static_cast<int>(candidates.size()); ++i) program.set_cost(i, candidates[i]->cost_ms(pricing));
  program.solve_from(1);
  if (!program.reachable(batch)) return std::nullopt;
  return split_of(program, candidates, pricing);
}

}  // namespace

std::optional<Measurement> fastest_within(const std::vector<Measurement>& rows, int micro_batch,
                                          std::size_t workspace_limit, CallPricing pricing) {
  std::optional<Measurement> best;
  for (const auto& row : rows) {
    if (row.micro_batch != micro_batch || row.workspace_bytes > workspace_limit) continue;
    if (better(row, best ? &*best : nullptr, pricing)) best = row;
  }
  return best;
}

std::optional<MicroBatchSplit> optimize_wr(int batch, const std::vector<int>& allowed_sizes,
                                  const std::vector<Measurement>& rows, std::size_t workspace_limit,
                                  CallPricing pricing) {
  if (batch <= 0) return std::nullopt;

  // The candidate single kernels: the fastest measurement at each allowed size, in one pass.
  std::vector<int> slot(static_cast<std::size_t>(batch) + 1, -1);
  std::vector<const Measurement*> fastest;
  for (int size : allowed_sizes) {
    if (size <= 0 || size > batch || slot[size] >= 0) continue;
    slot[size] = static_cast<int>(fastest.size());
    fastest.push_back(nullptr);
  }
  for (const auto& row : rows) {
    if (row.micro_batch <= 0 || row.micro_batch > batch || row.workspace_bytes > workspace_limit) continue;
    const int s = slot[row.micro_batch];
    if (s >= 0 && better(row, fastest[s], pricing)) fastest[s] = &row;
  }
  fastest.erase(std::remove(fastest.begin(), fastest.end(), nullptr), fastest.end());
  return solve_over(batch, fastest, pricing);
}

std::optional<MicroBatchSplit> optimize_wr_over(int batch, const std::vector<Measurement>& candidates,
                                                CallPricing pricing) {
  std::vector<const Measurement*> rows;
  rows.reserve(candidates.size());
  for (const auto& candidate : candidates) rows.push_back(&candidate);
  return solve_over(batch, rows, pricing);
}

MicroBatchSplit prefer_undivided_within_margin(MicroBatchSplit plan, const std::vector<Measurement>& rows,
                                               std::size_t workspace_limit, CallPricing pricing, double margin) {
  if (plan.micro_batch_count() <= 1) return plan;
  const std::optional<Measurement> whole = fastest_within(rows, plan.batch, workspace_limit, pricing);
  if (!whole) return plan;
  const double whole_ms = whole->cost_ms(pricing);
  const bool beyond_noise = whole_ms * (1.0 - margin) > plan.time_ms;
  // Replayed, the extra calls cost the host nothing: the graph is one launch.
  const bool pays_for_host = pricing == CallPricing::kReplayed || whole_ms - plan.time_ms > plan.host_ms() - whole->host_ms;
  if (beyond_noise && pays_for_host) return plan;
  MicroBatchSplit undivided;
  undivided.batch = plan.batch;
  undivided.runs.push_back(MicroBatchRun::of(*whole, 1, pricing));
  undivided.time_ms = whole_ms;
  undivided.workspace_bytes = whole->workspace_bytes;
  return undivided;
}

}  // namespace ucudnn::optimize
