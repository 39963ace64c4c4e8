#pragma once
// ExecutablePlan: a WR plan made ready to run. What its runs need to run (the descriptors of
// legacy runs, the execution plans of engine runs) is made once, when the plan is built, by each
// kind's runner (runtime/candidate_runtime.h), and reused by every call; a call that recurs is
// replayed as a CUDA graph (runtime/graph_replay.h).
//
// A plan may carry a second plan for replay: the same kernel planned with calls priced at their
// GPU time alone (CallPricing::kReplayed). Issued one by one, a split's extra calls cost host time
// that a host-bound program never wins back; in a graph they cost none, so a split the host-priced
// plan refused can pay there. Both compute the same convolution; the graph runs whichever of the
// two the call's workspace holds.

#include <cudnn.h>

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "core/batch_policy.h"
#include "core/candidate_kinds.h"
#include "core/conv_key.h"
#include "optimize/wr_optimizer.h"
#include "runtime/candidate_runtime.h"
#include "runtime/cuda_status.h"
#include "runtime/cudnn_shim.h"
#include "runtime/fp32_filter_sums.h"
#include "runtime/graph_replay.h"
#include "runtime/input_piece_filters.h"
#include "runtime/padded_input_copies.h"

namespace ucudnn::runtime {
using ucudnn::optimize::MicroBatchSplit;


class ExecutablePlan {
 public:
  /// Fails with NOT_SUPPORTED where an engine run needs more than `workspace_limit` with its
  /// scaling factors; those runs are then listed in `oversized`, for the planner to plan without.
  static Status build(const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy, MicroBatchSplit wr,
                      std::optional<double> undivided_time_ms, std::unique_ptr<ExecutablePlan>* out,
                      std::vector<OversizedEngineRun>* oversized = nullptr);

  /// Runs the plan as a sequence of cuDNN calls on micro-batches, all on the target's stream and
  /// without host synchronisation. Forward and backward data are split along N; backward filter
  /// accumulates: the first micro-batch uses the caller's beta, every later one beta = 1, except
  /// a half-precision filter gradient's, summed in FP32 (runtime/fp32_filter_sums.h). Where
  /// the target allows it, a call seen before with the same buffers and scalars is a graph launch
  /// of the replay plan's calls (where there is one and the workspace holds it), else of this one's.
  Status execute(const CallTarget& target, const void* alpha, const void* beta, const ConvBuffers& buffers,
                 void* workspace, std::size_t workspace_bytes) const;
  /// The same, directly on the handle's stream, never replayed.
  Status execute(cudnnHandle_t handle, const void* alpha, const void* beta, const ConvBuffers& buffers,
                 void* workspace, std::size_t workspace_bytes) const {
    return execute(CallTarget{handle, nullptr, false}, alpha, beta, buffers, workspace, workspace_bytes);
  }
  /// Whether neither this plan's calls nor its replay plan's could be captured (they run directly).
  bool replay_refused() const { return replay_.refused(); }

  /// Makes `plan` (of the same key and limit) the one recurring calls capture and replay.
  void set_replayed_plan(std::unique_ptr<ExecutablePlan> plan) { replayed_ = std::move(plan); }
  /// The plan replayed calls run: the replay plan where one was set, else this one.
  const ExecutablePlan& replayed_plan() const { return replayed_ ? *replayed_ : *this; }
  /// The workspace that lets every call run its best plan: the larger of this plan's and the
  /// replay plan's (both within the limit).
  std::size_t workspace_wanted() const;

  const ConvKey& key() const { return key_; }
  const MicroBatchSplit& split() const { return split_; }
  std::size_t workspace_limit() const { return workspace_limit_; }
  BatchSizePolicy policy() const { return policy_; }
  std::optional<double> undivided_time_ms() const { return undivided_time_ms_; }
  /// Whether every run, of this plan and of its replay plan, is deterministic.
  bool deterministic() const;

 private:
  ExecutablePlan() = default;
  /// The plan's cuDNN calls, queued on `handle`'s stream.
  Status enqueue(cudnnHandle_t handle, const void* alpha, const void* beta, const ConvBuffers& buffers,
                 void* workspace, std::size_t workspace_bytes) const;
  /// One micro-batch's call of run `r`: each of its output-channel pieces on its slices of y and
  /// the filter, or each of its input-channel pieces on its channels of x and its slice of the
  /// filter, copied to the start of the call's workspace (optimize/channel_pieces.h), or the call
  /// itself where the run has none.
  Status enqueue_pieces(cudnnHandle_t handle, const KindRunner& runner, std::size_t r, MicroBatchCall call,
                        const void* one) const;

  ConvKey key_;
  std::size_t workspace_limit_ = 0;
  BatchSizePolicy policy_ = BatchSizePolicy::kPowerOfTwo;
  MicroBatchSplit split_;
  std::optional<double> undivided_time_ms_;
  /// The runner of each kind the plan has runs of (null for the others), by CandidateKind.
  std::array<std::unique_ptr<KindRunner>, kCandidateKindCount> runners_;
  /// The workspace ahead of the calls': the FP32 accumulator, then the padded copies.
  std::size_t ahead_bytes() const { return accumulator_bytes_ + (copies_ ? copies_->workspace_bytes() : 0); }
  /// What an input piece's filter copy takes at the start of its call's workspace.
  std::size_t piece_filter_bytes() const { return piece_filters_ ? piece_filters_->workspace_bytes() : 0; }

  std::unique_ptr<Fp32FilterSums> sums_;  ///< null: the split sums in the filter's type (or is undivided)
  std::size_t accumulator_bytes_ = 0;     ///< sums_' FP32 accumulator, at the workspace's start
  std::unique_ptr<PaddedInputCopies> copies_;  ///< null: the calls run on the caller's input
  std::unique_ptr<InputPieceFilters> piece_filters_;  ///< null: no run in input-channel pieces
  std::unique_ptr<ExecutablePlan> replayed_;  ///< null: recurring calls replay this plan
  mutable GraphReplay replay_;  ///< after replayed_: its graphs go before the plans they captured
};

}  // namespace ucudnn::runtime
