#pragma once
// The candidates timed so far at one micro-batch size, of every kind: what the fast search makes
// a new candidate beat (core/timing_rules.h's TimingBound), and whether a timed one improved
// on them. A candidate matters to a plan under a workspace limit only if no other is at least as
// fast within the limit (or, beyond the limit, with no more workspace: the rows serve other
// limits too), so a candidate is measured against the rows needing at most the larger of its
// workspace and the limit. The order candidates are timed in (search_order) puts first those on
// the front of the next larger size, where the winners of this size usually are.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/measurement.h"
#include "core/timing_rules.h"

namespace ucudnn::runtime {

/// Offers in a row that may fail to improve on the known candidates before the fast search stops
/// timing more at a size (those on the larger size's front are always timed).
inline constexpr int kSearchPatience = 4;

class Contenders {
 public:
  explicit Contenders(std::size_t workspace_limit = SIZE_MAX) : workspace_limit_(workspace_limit) {}

  void add(const Measurement& m) { rows_.push_back(Row{m.time_ms, m.cost_ms(CallPricing::kIssued), m.workspace_bytes}); }
  void add(const std::vector<Measurement>* rows) {
    if (rows) {
      for (const Measurement& m : *rows) add(m);
    }
  }

  /// The best times of the rows a candidate needing `workspace` bytes competes with; none where
  /// no row does.
  std::optional<TimingBound> bound_for(std::size_t workspace) const {
    const std::size_t reach = std::max(workspace, workspace_limit_);
    std::optional<TimingBound> bound;
    for (const Row& r : rows_) {
      if (r.workspace > reach) continue;
      if (!bound) bound = TimingBound{r.gpu_ms, r.cost_ms};
      bound->gpu_ms = std::min(bound->gpu_ms, r.gpu_ms);
      bound->cost_ms = std::min(bound->cost_ms, r.cost_ms);
    }
    return bound;
  }

  /// Whether `m` beats, on the GPU or as issued, every row it competes with by more than timing
  /// noise (kNoise).
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
  std::size_t workspace_limit_;
  std::vector<Row> rows_;
};

/// Whether `m` is on the front of `rows`: no row is faster (as issued) with no more workspace.
inline bool on_front(const Measurement& m, const std::vector<Measurement>& rows) {
  return std::none_of(rows.begin(), rows.end(), [&](const Measurement& o) {
    return o.workspace_bytes <= m.workspace_bytes && o.cost_ms(CallPricing::kIssued) < m.cost_ms(CallPricing::kIssued);
  });
}

/// The indices of `count` candidates in the order the fast search times them: those whose row at
/// the larger size (`larger_size_rows`) is on that size's front first, each group in the given order.
/// `same(i, row)` says whether candidate i is the row's candidate.
template <typename Same>
std::vector<std::size_t> search_order(std::size_t count, const std::vector<Measurement>* larger_size_rows, Same same,
                                      std::vector<bool>* on_larger_front) {
  std::vector<std::size_t> first, rest;
  on_larger_front->assign(count, false);
  for (std::size_t i = 0; i < count; ++i) {
    const auto on_its_front = [&](const Measurement& row) {
      return same(i, row) && on_front(row, *larger_size_rows);
    };
    const bool leading =
        larger_size_rows && std::any_of(larger_size_rows->begin(), larger_size_rows->end(), on_its_front);
    (*on_larger_front)[i] = leading;
    (leading ? first : rest).push_back(i);
  }
  first.insert(first.end(), rest.begin(), rest.end());
  return first;
}

}  // namespace ucudnn::runtime
