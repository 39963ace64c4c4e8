#include "optimize/wr_optimizer.h"

#include <algorithm>
#include <string>
#include <limits>
#include <map>
#include <tuple>

namespace ucudnn::optimize {

namespace {

// Whether `row` should replace `best` as the measurement its size runs: cheaper, or as cheap with
// less workspace (the first of equal rows stays).
bool better(const Measurement& row, const std::optional<Measurement>& best, CallPricing pricing) {
  return !best || row.cost_ms(pricing) < best->cost_ms(pricing) ||
         (row.cost_ms(pricing) == best->cost_ms(pricing) && row.workspace_bytes < best->workspace_bytes);
}

}  // namespace

int MicroBatchSplit::micro_batch_count() const {
  int n = 0;
  for (const auto& run : runs) n += run.count;
  return n;
}

double MicroBatchSplit::host_ms() const {
  double total = 0.0;
  for (const auto& run : runs) total += run.host_ms * run.count;
  return total;
}

bool MicroBatchSplit::deterministic() const {
  return std::all_of(runs.begin(), runs.end(), [](const MicroBatchRun& run) { return run.deterministic; });
}

std::optional<Measurement> fastest_within(const std::vector<Measurement>& rows, int micro_batch,
                                          std::size_t workspace_limit, CallPricing pricing) {
  std::optional<Measurement> best;
  for (const auto& row : rows) {
    if (row.micro_batch != micro_batch || row.workspace_bytes > workspace_limit) continue;
    if (better(row, best, pricing)) best = row;
  }
  return best;
}

std::optional<MicroBatchSplit> optimize_wr(int batch, const std::vector<int>& allowed_sizes,
                                  const std::vector<Measurement>& rows, std::size_t workspace_limit,
                                  CallPricing pricing) {
  if (batch <= 0) return std::nullopt;

  // The candidate single kernels: the fastest measurement at each allowed size, in one pass.
  std::vector<int> slot(static_cast<std::size_t>(batch) + 1, -1);
  std::vector<std::optional<Measurement>> fastest;
  for (int size : allowed_sizes) {
    if (size <= 0 || size > batch || slot[size] >= 0) continue;
    slot[size] = static_cast<int>(fastest.size());
    fastest.emplace_back();
  }
  for (const auto& row : rows) {
    if (row.micro_batch <= 0 || row.micro_batch > batch || row.workspace_bytes > workspace_limit) continue;
    const int s = slot[row.micro_batch];
    if (s >= 0 && better(row, fastest[s], pricing)) fastest[s] = row;
  }
  std::vector<Measurement> candidates;
  for (const auto& best : fastest) {
    if (best) candidates.push_back(*best);
  }
  return optimize_wr_over(batch, candidates, pricing);
}

std::optional<MicroBatchSplit> optimize_wr_over(int batch, const std::vector<Measurement>& candidates,
                                                CallPricing pricing) {
  if (batch <= 0) return std::nullopt;
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  std::vector<double> time(batch + 1, kInfinity);
  std::vector<int> calls(batch + 1, 0);
  std::vector<int> choice(batch + 1, -1);  // index into candidates of the last micro-batch
  time[0] = 0.0;
  for (int b = 1; b <= batch; ++b) {
    for (int i = 0; i < static_cast<int>(candidates.size()); ++i) {
      const int size = candidates[i].micro_batch;
      if (size <= 0 || size > b || time[b - size] == kInfinity) continue;
      const double t = time[b - size] + candidates[i].cost_ms(pricing);
      const int n = calls[b - size] + 1;
      if (std::tie(t, n) < std::tie(time[b], calls[b])) {
        time[b] = t;
        calls[b] = n;
        choice[b] = i;
      }
    }
  }
  if (time[batch] == kInfinity) return std::nullopt;

  // Walk back through the choices and group equal micro-kernels.
  std::map<std::tuple<int, int, int, std::string>, MicroBatchRun, std::greater<>> grouped;
  for (int b = batch; b > 0; b -= candidates[choice[b]].micro_batch) {
    const Measurement& m = candidates[choice[b]];
    auto& run = grouped[{m.micro_batch, m.algo, m.math_type, m.engine}];
    run.size = m.micro_batch;
    run.algo = m.algo;
    run.math_type = m.math_type;
    run.engine = m.engine;
    run.time_ms = m.cost_ms(pricing);
    run.workspace_bytes = m.workspace_bytes;
    run.deterministic = m.deterministic;
    run.host_ms = m.host_ms;
    ++run.count;
  }

  MicroBatchSplit plan;
  plan.batch = batch;
  for (const auto& entry : grouped) {
    plan.runs.push_back(entry.second);
    plan.time_ms += entry.second.time_ms * entry.second.count;
    plan.workspace_bytes = std::max(plan.workspace_bytes, entry.second.workspace_bytes);
  }
  return plan;
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
  undivided.runs.push_back(MicroBatchRun{plan.batch, whole->algo, whole->math_type, 1, whole_ms,
                                         whole->workspace_bytes, whole->deterministic, whole->engine, whole->host_ms});
  undivided.time_ms = whole_ms;
  undivided.workspace_bytes = whole->workspace_bytes;
  return undivided;
}

}  // namespace ucudnn::optimize
