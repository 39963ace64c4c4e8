#pragma once
// A kernel's plan as the optimisers make it: the batch split into runs of micro-batches, each run
// consecutive calls of one measured row (optimize/wr_optimizer.h solves it, optimize/pareto.h and
// optimize/wd_optimizer.h choose among them).

#include <cstddef>
#include <vector>

#include "core/conv_op.h"
#include "core/measurement.h"

namespace ucudnn::optimize {

/// `count` consecutive calls of one measured row: its candidate (a legacy algorithm or an engine
/// configuration, core/candidate.h) on micro-batches of its size.
struct MicroBatchRun {
  Measurement row;  ///< what each call runs and its measurement: candidate, micro-batch, workspace, host time
  int count = 0;
  double call_ms = 0.0;  ///< predicted time of one call: the row's cost under the plan's pricing

  /// `count` calls of `row`, each priced under `pricing`.
  static MicroBatchRun of(const Measurement& row, int count, CallPricing pricing) {
    return MicroBatchRun{row, count, row.cost_ms(pricing)};
  }
  int size() const { return row.micro_batch; }
  const Candidate& candidate() const { return row.candidate; }
};

struct MicroBatchSplit {
  int batch = 0;
  std::vector<MicroBatchRun> runs;  ///< larger micro-batches first
  double time_ms = 0.0;             ///< predicted: the sum of the runs' times
  std::size_t workspace_bytes = 0;  ///< the largest workspace of any run
  /// Backward filter's micro-batches summed in FP32 (optimize/filter_sums.h): set by the plan
  /// that runs the split, from its kernel.
  bool sums_in_fp32 = false;

  int micro_batch_count() const;
  /// Whether some micro-batch runs in output- or input-channel pieces.
  bool in_channel_pieces() const;
  /// Whether the plan's later calls add to the output the first wrote (beta = 1): a backward
  /// filter split across micro-batches, backward data run in output-channel pieces, or forward in
  /// input-channel pieces.
  bool later_calls_accumulate(ConvOp op) const;
  /// The host's time to issue every call of the plan.
  double host_ms() const;
  /// Whether every run's algorithm is deterministic.
  bool deterministic() const;
};

}  // namespace ucudnn::optimize
