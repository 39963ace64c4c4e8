#pragma once
// Workspace reuse (WR): the paper's per-kernel dynamic program (§III-B).
//
//   T(0) = 0,  T(b) = min over allowed sizes s <= b of  fastest(s) + T(b - s)
//
// where fastest(s) is the quickest measured algorithm on a micro-batch of s within the
// workspace limit. A call's time is its row's cost under a CallPricing: issued by the host, the
// longer of its GPU time and the host's time to issue it (Measurement::cost_ms), since where the
// host sets the pace more micro-batches cost more host time than they save on the GPU; replayed
// from a captured graph, its GPU time alone. The micro-batches run one after another and
// reuse one workspace, so the plan's workspace is the largest any of its micro-batches needs. A
// pure function over a table.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/measurement.h"
#include "optimize/micro_batch_split.h"

namespace ucudnn::optimize {

/// The fastest measurement at exactly `micro_batch` within the limit (ties: less workspace).
std::optional<Measurement> fastest_within(const std::vector<Measurement>& rows, int micro_batch,
                                          std::size_t workspace_limit, CallPricing pricing = CallPricing::kIssued);

/// Solves the WR program for `batch`, using only `allowed_sizes` that have measurements within
/// `workspace_limit`. Among equally fast plans it prefers fewer micro-batches. Returns nothing
/// when no combination of measured sizes adds up to `batch` within the limit. Cost: one pass over
/// the rows, then batch x sizes steps, over arrays of numbers (optimize/wr_recurrence.h).
std::optional<MicroBatchSplit> optimize_wr(int batch, const std::vector<int>& allowed_sizes,
                                  const std::vector<Measurement>& rows, std::size_t workspace_limit,
                                  CallPricing pricing = CallPricing::kIssued);

/// The WR program over given `candidates`, each the one measurement its micro-batch size would run
/// (distinct sizes; on equal plans the earlier candidate wins). optimize_wr is this over the
/// fastest row of each allowed size within the limit.
std::optional<MicroBatchSplit> optimize_wr_over(int batch, const std::vector<Measurement>& candidates,
                                       CallPricing pricing = CallPricing::kIssued);

/// How much faster a split plan must be predicted than the fastest undivided algorithm within
/// the limit for ucudnn to run it. Below that margin the difference is within what the
/// benchmark's medians and the host's pace vary by from run to run (a few percent on the H100
/// machines), and the plan would risk losing to plain cuDNN for nothing.
inline constexpr double kSplitMargin = 0.05;

/// `plan`, or the whole batch as one call of the fastest algorithm within the limit unless the
/// plan is predicted faster by more than the noise (`margin`) and by more than the host time its
/// extra calls add. The second rule is for programs whose host sets the pace (a framework's
/// eager loop): there every microsecond a split adds on the host is lost, while what it saves on
/// the GPU may not be won back; a split that saves milliseconds for microseconds always passes.
/// Replayed calls add no host time, so under kReplayed only the margin applies. `pricing` must be
/// the one `plan` was solved under.
MicroBatchSplit prefer_undivided_within_margin(MicroBatchSplit plan, const std::vector<Measurement>& rows,
                                               std::size_t workspace_limit, CallPricing pricing = CallPricing::kIssued,
                                               double margin = kSplitMargin);

}  // namespace ucudnn::optimize
