#pragma once
// The candidates timed so far at one micro-batch size, of every kind: what the fast search makes
// a new candidate beat (runtime/benchmark_rig.h's TimingBound), and whether a timed one improved
// on them. A candidate only matters to a plan if no other is at least as fast with no more
// workspace (the Pareto front the planners choose from), so a candidate is measured against the
// rows that need no more workspace than it does.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "core/measurement.h"
#include "runtime/benchmark_rig.h"

namespace ucudnn::runtime {

class Contenders {
 public:
  Contenders() = default;
  explicit Contenders(const std::vector<Measurement>& rows) {
    for (const Measurement& m : rows) add(m);
  }

  void add(const Measurement& m) { rows_.push_back(Row{m.time_ms, m.cost_ms(CallPricing::kIssued), m.workspace_bytes}); }

  /// The best times of the rows that need at most `workspace` bytes; none where no row does.
  std::optional<TimingBound> bound_for(std::size_t workspace) const {
    std::optional<TimingBound> bound;
    for (const Row& r : rows_) {
      if (r.workspace > workspace) continue;
      if (!bound) bound = TimingBound{r.gpu_ms, r.cost_ms};
      bound->gpu_ms = std::min(bound->gpu_ms, r.gpu_ms);
      bound->cost_ms = std::min(bound->cost_ms, r.cost_ms);
    }
    return bound;
  }

  /// Whether `m` beats, on the GPU or as issued, every row that needs no more workspace by more
  /// than timing noise (kNoise): it joins the front a plan chooses from.
  bool improves(const Measurement& m) const {
    constexpr double kNoise = 0.02;
    const std::optional<TimingBound> bound = bound_for(m.workspace_bytes);
    return !bound || m.time_ms < bound->gpu_ms * (1 - kNoise) ||
           m.cost_ms(CallPricing::kIssued) < bound->cost_ms * (1 - kNoise);
  }

 private:
  struct Row {
    double gpu_ms;
    double cost_ms;
    std::size_t workspace;
  };
  std::vector<Row> rows_;
};

}  // namespace ucudnn::runtime
