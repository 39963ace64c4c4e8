#pragma once
// The one search loop over a kind's candidates at one micro-batch size, for every kind (legacy
// algorithms, engines): the order (runtime/contenders.h's search_order), the fast search's
// patience, and the contenders each timing must beat. A kind supplies only what differs: how to
// tell its candidate from a row, which candidates to pass over, and how to time one.
//
// The fast search takes the candidates on the next larger size's front first, then the kind's own
// order (cuDNN's heuristics rank it), and stops after kSearchPatience candidates in a row that did
// not improve on the contenders (those on the larger front are always timed); the exhaustive search
// times every candidate.

#include <cstddef>
#include <optional>
#include <vector>

#include "core/measurement.h"
#include "core/statistics.h"
#include "runtime/candidate_runtime.h"
#include "runtime/contenders.h"

namespace ucudnn::runtime {

/// Times `count` candidates of one kind at `request`'s size into `measured`, the `fast` way or not.
/// `same(i, row)`: whether `row` is candidate i's. `pass_over(i)`: candidate i is known already or
/// unusable here (not timed, and no miss). `time(i, contenders, &timed)`: times candidate i against
/// the contenders (runtime/benchmark_rig.h's bound), leaving `timed` empty where it was left out;
/// an error stops the search and is the result.
template <typename Same, typename PassOver, typename Time>
Status search_candidates(std::size_t count, const SizeRequest& request, bool fast, ConvOp op, Same same,
                         PassOver pass_over, Time time, std::vector<Measurement>* measured) {
  Contenders contenders(request.workspace_limit);
  contenders.add(request.other_kinds_rows);
  contenders.add(request.measured_before);
  std::vector<bool> on_larger_front;
  const std::vector<std::size_t> order =
      search_order(count, fast ? request.larger_size_rows : nullptr, same, &on_larger_front);
  int misses_in_a_row = 0;  // candidates in a row that did not improve on the contenders
  for (std::size_t i : order) {
    if (pass_over(i)) continue;
    if (fast && !on_larger_front[i] && misses_in_a_row >= kSearchPatience) {
      Statistics::instance().count_search(op, SearchCount::kNotTimed);
      continue;
    }
    std::optional<Measurement> timed;
    UCUDNN_TRY(time(i, static_cast<const Contenders&>(contenders), &timed));
    if (!timed) continue;
    if (!on_larger_front[i]) misses_in_a_row = contenders.improves(*timed) ? 0 : misses_in_a_row + 1;
    contenders.add(*timed);
    measured->push_back(std::move(*timed));
  }
  return Status::success();
}

}  // namespace ucudnn::runtime
