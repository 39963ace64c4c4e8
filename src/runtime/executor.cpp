#include "runtime/executor.h"

#include <algorithm>
#include <cstdint>

#include "core/statistics.h"
#include "optimize/channel_pieces.h"
#include "optimize/filter_sums.h"
#include "runtime/input_piece_filters.h"
#include "runtime/padded_input_copies.h"
#include "runtime/scaling_factors.h"

namespace ucudnn::runtime {
using ucudnn::optimize::MicroBatchRun;


Status ExecutablePlan::build(const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy,
                             MicroBatchSplit wr, std::optional<double> undivided_time_ms,
                             std::unique_ptr<ExecutablePlan>* out, std::vector<OversizedEngineRun>* oversized) {
  std::unique_ptr<ExecutablePlan> plan(new ExecutablePlan());
  plan->key_ = key;
  plan->workspace_limit_ = workspace_limit;
  plan->policy_ = policy;
  plan->undivided_time_ms_ = undivided_time_ms;
  plan->split_ = std::move(wr);
  // A plan on a padded input pads every micro-batch (plan_making plans it apart): its calls are
  // the padded kernel's, on copies at the start of the workspace.
  const auto& runs = plan->split_.runs;
  const int padded_channels = runs.empty() ? 0 : runs.front().candidate().padded_channels;
  std::vector<int> sizes, input_piece_counts;
  for (const MicroBatchRun& run : runs) {
    if (run.candidate().padded_channels != padded_channels) {
      return Error(ErrorCode::kBadParam, "a plan of " + key.to_string() + " pads some micro-batches' input, not all");
    }
    sizes.push_back(run.size());
    if (run.candidate().input_pieces > 1) input_piece_counts.push_back(run.candidate().input_pieces);
  }
  if (padded_channels > 0) UCUDNN_TRY(PaddedInputCopies::make(key, sizes, &plan->copies_));
  if (!input_piece_counts.empty()) UCUDNN_TRY(InputPieceFilters::make(key, input_piece_counts, &plan->piece_filters_));
  const ConvKey& run_key = plan->copies_ ? plan->copies_->padded_key() : key;
  // A split of a half-precision filter gradient sums in FP32: the accumulator comes first in the
  // workspace, then the padded copies; the runs' calls get what is left.
  plan->split_.sums_in_fp32 = optimize::sums_in_fp32(key) && plan->split_.micro_batch_count() > 1;
  plan->accumulator_bytes_ = plan->split_.sums_in_fp32 ? optimize::fp32_sum_bytes(run_key) : 0;
  const std::size_t ahead = plan->ahead_bytes();
  if (ahead > workspace_limit) {
    return Error(ErrorCode::kNotSupported, "the FP32 sums and padded copies of " + key.to_string() + " need " +
                                               std::to_string(ahead) + " bytes, over the limit of " +
                                               std::to_string(workspace_limit));
  }
  if (plan->split_.sums_in_fp32) UCUDNN_TRY(Fp32FilterSums::make(run_key, &plan->sums_));
  for (const CandidateKindInfo& info : candidate_kinds()) {
    const bool has_runs = std::any_of(runs.begin(), runs.end(),
                                      [&](const MicroBatchRun& run) { return run.candidate().kind == info.kind; });
    if (!has_runs) continue;
    std::unique_ptr<KindRunner>& runner = plan->runners_[static_cast<std::size_t>(info.kind)];
    // An input piece's filter copy is counted against every call: the runners plan within what a
    // piece's call has left.
    const std::size_t reserved = ahead + plan->piece_filter_bytes();
    if (reserved > workspace_limit) {
      return Error(ErrorCode::kNotSupported, "an input piece's filter copy of " + key.to_string() +
                                                 " is over the limit of " + std::to_string(workspace_limit));
    }
    UCUDNN_TRY(
        kind_runtime(info.kind).make_runner(run_key, plan->split_, workspace_limit - reserved, &runner, oversized));
    // The plan asks for what its calls need, within the limit (the runner refuses more).
    plan->split_.workspace_bytes = std::max(plan->split_.workspace_bytes, reserved + runner->workspace_bytes());
  }
  *out = std::move(plan);
  return Status::success();
}

bool ExecutablePlan::deterministic() const {
  return split_.deterministic() && (!replayed_ || replayed_->deterministic());
}

std::size_t ExecutablePlan::workspace_wanted() const {
  return std::max(split_.workspace_bytes, replayed_plan().split_.workspace_bytes);
}

Status ExecutablePlan::execute(const CallTarget& target, const void* alpha, const void* beta,
                               const ConvBuffers& buffers, void* workspace, std::size_t workspace_bytes) const {
  if (workspace_bytes < split_.workspace_bytes) {
    return Error(ErrorCode::kBadParam, "the plan needs " + std::to_string(split_.workspace_bytes) +
                                              " bytes of workspace, the call gave " + std::to_string(workspace_bytes));
  }
  const bool is_double = scales_in_double(key_);
  const CallSignature signature{buffers.x,       buffers.y,
                                buffers.w,       workspace,
                                workspace_bytes, scalar_bits(alpha, is_double),
                                scalar_bits(beta, is_double)};
  // A call whose workspace is too small for the replay plan replays this one. The workspace size
  // is part of the signature, so a launched graph holds the plan chosen here, or (where that
  // could not be captured) this one.
  const ExecutablePlan& captured =
      replayed_plan().split_.workspace_bytes <= workspace_bytes ? replayed_plan() : *this;
  ReplayOutcome outcome;
  UCUDNN_TRY(replay_.run(
      key_.device, target, signature, &outcome,
      [&](cudnnHandle_t handle) { return enqueue(handle, alpha, beta, buffers, workspace, workspace_bytes); },
      [&](cudnnHandle_t handle) {
        return captured.enqueue(handle, alpha, beta, buffers, workspace, workspace_bytes);
      }));
  const ExecutablePlan& ran = outcome.replayed && !outcome.of_direct ? captured : *this;
  Statistics::instance().count_execution(key_.op,
                                         ExecutedSplit{ran.split_.micro_batch_count(), ran.split_.in_channel_pieces(),
                                                       ran.split_.sums_in_fp32, ran.copies_ != nullptr},
                                         outcome.replayed);
  if (outcome.captured) Statistics::instance().add_capture(key_.op, outcome.capture_seconds);
  return Status::success();
}

Status ExecutablePlan::enqueue(cudnnHandle_t handle, const void* alpha, const void* beta, const ConvBuffers& buffers,
                               void* workspace, std::size_t workspace_bytes) const {
  const ScalingFactor one_factor(key_, 1.0);
  const void* one = one_factor.get();
  const std::size_t x_step = static_cast<std::size_t>(key_.x.strides[0]) * element_size(key_.x.data_type);
  const std::size_t y_step = static_cast<std::size_t>(key_.y.strides[0]) * element_size(key_.y.data_type);

  // Null scalars are left to the runners: cuDNN refuses them in legacy calls.
  CallScaling scaling;
  scaling.given = alpha && beta;
  scaling.alpha = read_scaling_factor(key_, alpha, 1.0);
  scaling.beta = read_scaling_factor(key_, beta, 0.0);
  // Summed in FP32, backward filter's later micro-batches run with beta = 0 and -1 instead.
  scaling.accumulates = split_.later_calls_accumulate(key_.op) && !sums_;
  scaling.sums_in_fp32 = sums_ != nullptr;
  if (sums_ && !scaling.given) return Error(ErrorCode::kBadParam, "a split summed in FP32 needs alpha and beta");
  // A padded backward filter computes its copy of the gradient, copied out at the end; where the
  // caller's beta is not 0, beta dw is put into the copy (or the FP32 sums) first and the calls
  // add to it, so that the result is rounded once.
  const bool gradient_copied_out = copies_ && key_.op == ConvOp::kBackwardFilter;
  const bool preloaded = gradient_copied_out && scaling.beta != 0.0;
  const ScalingFactor zero(key_, 0.0), minus_one(key_, -1.0);
  CallScaling calls = scaling;
  if (gradient_copied_out) calls.beta = preloaded && !sums_ ? 1.0 : 0.0;
  const void* const calls_beta = !gradient_copied_out ? beta : calls.beta == 1.0 ? one : zero.get();
  void* const accumulator = workspace;
  void* const copies = static_cast<char*>(workspace) + accumulator_bytes_;
  void* const call_workspace = static_cast<char*>(workspace) + ahead_bytes();
  const std::size_t call_workspace_bytes = workspace_bytes - ahead_bytes();  // execute() checked the size
  // What the calls read and write in place of the caller's x and filter where the input is padded.
  void* const w = copies_ ? copies_->filter_copy(copies) : buffers.w;
  ConvBuffers call_buffers = buffers;
  if (copies_) call_buffers = ConvBuffers{copies_->input_copy(copies), w, buffers.y};
  // Checked before anything is queued: a call that fails half-way would leave the output partly
  // written for the fallback to plain cuDNN (wrong where beta is not 0).
  for (const auto& runner : runners_) {
    if (runner) {
      UCUDNN_TRY(runner->check_call(calls, call_buffers, static_cast<char*>(call_workspace) + piece_filter_bytes(),
                                    call_workspace_bytes - piece_filter_bytes()));
    }
  }
  if (copies_) UCUDNN_TRY(copies_->start(handle, buffers.w, copies));
  if (preloaded && sums_) UCUDNN_TRY(copies_->preload_fp32_sums(handle, scaling.beta, buffers.w, accumulator));
  if (preloaded && !sums_) UCUDNN_TRY(copies_->preload_gradient(handle, scaling.beta, buffers.w, copies));
  if (sums_) UCUDNN_TRY(sums_->start(handle, calls.beta, w, accumulator));
  std::size_t offset = 0;
  bool first = true;
  for (std::size_t r = 0; r < split_.runs.size(); ++r) {
    const MicroBatchRun& run = split_.runs[r];
    const KindRunner& runner = *runners_[static_cast<std::size_t>(run.candidate().kind)];
    for (int i = 0; i < run.count; ++i) {
      MicroBatchCall call;
      call.buffers.x = static_cast<char*>(buffers.x) + offset * x_step;
      call.buffers.y = static_cast<char*>(buffers.y) + offset * y_step;
      call.buffers.w = w;
      if (copies_) {
        UCUDNN_TRY(copies_->copy_input(handle, run.size(), call.buffers.x, copies));
        call.buffers.x = call_buffers.x;
      }
      call.alpha = alpha;
      call.alpha_value = scaling.alpha;
      call.workspace = call_workspace;
      call.workspace_bytes = call_workspace_bytes;
      if (sums_) {
        // The partial rounded (H), then what the rounding lost, each added in FP32.
        call.beta = zero.get();
        call.beta_value = 0.0;
        UCUDNN_TRY(enqueue_pieces(handle, runner, r, call, one));
        UCUDNN_TRY(sums_->add(handle, w, accumulator, first && calls.beta == 0.0 && !preloaded));
        call.beta = minus_one.get();
        call.beta_value = -1.0;
        UCUDNN_TRY(enqueue_pieces(handle, runner, r, call, one));
        UCUDNN_TRY(sums_->add(handle, w, accumulator, false));
      } else {
        const bool accumulate = key_.op == ConvOp::kBackwardFilter && !first;
        call.beta = accumulate ? one : calls_beta;
        call.beta_value = accumulate ? 1.0 : calls.beta;
        UCUDNN_TRY(enqueue_pieces(handle, runner, r, call, one));
      }
      offset += static_cast<std::size_t>(run.size());
      first = false;
    }
  }
  if (sums_) UCUDNN_TRY(sums_->finish(handle, accumulator, w));
  if (gradient_copied_out) UCUDNN_TRY(copies_->copy_filter_gradient_out(handle, copies, buffers.w));
  return Status::success();
}

Status ExecutablePlan::enqueue_pieces(cudnnHandle_t handle, const KindRunner& runner, std::size_t r,
                                      MicroBatchCall call, const void* one) const {
  const int input_pieces = split_.runs[r].candidate().input_pieces;
  if (input_pieces > 1) {
    // Each piece on its input channels of x and its copied slice of the filter, adding into y.
    char* const x = static_cast<char*>(call.buffers.x);
    const void* const w = call.buffers.w;
    void* const piece_filter = call.workspace;
    call.workspace = static_cast<char*>(call.workspace) + piece_filter_bytes();
    call.workspace_bytes -= piece_filter_bytes();
    for (int p = 0; p < input_pieces; ++p) {
      UCUDNN_TRY(piece_filters_->copy(handle, input_pieces, p, w, piece_filter));
      call.buffers.x = x + optimize::input_piece_x_offset(key_, input_pieces, p) * element_size(key_.x.data_type);
      call.buffers.w = piece_filter;
      if (p > 0) {
        call.beta = one;
        call.beta_value = 1.0;
      }
      UCUDNN_TRY(runner.enqueue(handle, r, call));
    }
    return Status::success();
  }
  const int pieces = split_.runs[r].candidate().channel_pieces;
  if (pieces <= 1) return runner.enqueue(handle, r, call);
  char* const y = static_cast<char*>(call.buffers.y);
  char* const w = static_cast<char*>(call.buffers.w);
  const std::size_t y_element = element_size(key_.y.data_type);
  const std::size_t w_element = element_size(key_.w.data_type);
  for (int p = 0; p < pieces; ++p) {
    const optimize::PieceOffsets offsets = optimize::channel_piece_offsets(key_, pieces, p);
    call.buffers.y = y + offsets.y_elements * y_element;
    call.buffers.w = w + offsets.w_elements * w_element;
    // Backward data's pieces each add their channels' share to the same dx.
    if (p > 0 && key_.op == ConvOp::kBackwardData) {
      call.beta = one;
      call.beta_value = 1.0;
    }
    UCUDNN_TRY(runner.enqueue(handle, r, call));
  }
  return Status::success();
}

}  // namespace ucudnn::runtime
