#include "optimize/micro_batch_split.h"

#include <algorithm>

namespace ucudnn::optimize {

int MicroBatchSplit::micro_batch_count() const {
  int n = 0;
  for (const auto& run : runs) n += run.count;
  return n;
}

bool MicroBatchSplit::in_channel_pieces() const {
  return std::any_of(runs.begin(), runs.end(), [](const MicroBatchRun& run) {
    return run.candidate().channel_pieces > 1 || run.candidate().input_pieces > 1;
  });
}

bool MicroBatchSplit::later_calls_accumulate(ConvOp op) const {
  if (op == ConvOp::kBackwardFilter) return micro_batch_count() > 1;
  // Backward data's output-channel pieces and forward's input-channel pieces add into their output.
  const bool input_pieces =
      std::any_of(runs.begin(), runs.end(), [](const MicroBatchRun& run) { return run.candidate().input_pieces > 1; });
  if (op == ConvOp::kForward) return input_pieces;
  return op == ConvOp::kBackwardData && in_channel_pieces();
}

double MicroBatchSplit::host_ms() const {
  double total = 0.0;
  for (const auto& run : runs) total += run.row.host_ms * run.count;
  return total;
}

bool MicroBatchSplit::deterministic() const {
  return std::all_of(runs.begin(), runs.end(), [](const MicroBatchRun& run) { return run.row.deterministic; });
}

}  // namespace ucudnn::optimize
