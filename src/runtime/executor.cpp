#include "runtime/executor.h"

#include <algorithm>
#include <cstdint>

#include "core/statistics.h"

namespace ucudnn {

Status ExecutablePlan::build(const ConvKey& key, std::size_t workspace_limit, BatchSizePolicy policy, WrPlan wr,
                             std::optional<double> undivided_time_ms, std::unique_ptr<ExecutablePlan>* out,
                             std::vector<OversizedEngineRun>* oversized) {
  std::unique_ptr<ExecutablePlan> plan(new ExecutablePlan());
  plan->key_ = key;
  plan->workspace_limit_ = workspace_limit;
  plan->policy_ = policy;
  plan->undivided_time_ms_ = undivided_time_ms;
  UCUDNN_TRY(make_filter_descriptor(key.w, &plan->filter_));
  for (const MicroBatchRun& run : wr.runs) {
    if (run.is_engine()) continue;
    if (!plan->x_by_size_.count(run.size)) {
      const ConvKey micro = key.with_batch(run.size);
      UCUDNN_TRY(make_tensor_descriptor(micro.x, &plan->x_by_size_[run.size]));
      UCUDNN_TRY(make_tensor_descriptor(micro.y, &plan->y_by_size_[run.size]));
    }
    if (!plan->conv_by_math_.count(run.math_type)) {
      UCUDNN_TRY(make_convolution_descriptor(key.conv, run.math_type, &plan->conv_by_math_[run.math_type]));
    }
  }
  plan->has_engine_runs_ =
      std::any_of(wr.runs.begin(), wr.runs.end(), [](const MicroBatchRun& run) { return run.is_engine(); });
  plan->wr_ = std::move(wr);
  if (plan->has_engine_runs_) {
    const ScaledEnginePlans* plain = nullptr;
    const ScaledEnginePlans* accumulating = nullptr;
    UCUDNN_TRY(plan->engine_plans(1.0, 0.0, &plain));
    const bool accumulates = key.op == ConvOp::kBackwardFilter && plan->wr_.micro_batch_count() > 1;
    if (accumulates) UCUDNN_TRY(plan->engine_plans(1.0, 1.0, &accumulating));
    // An engine may need more workspace with beta = 1 than with beta = 0: the plan asks for what
    // its calls need, within the limit.
    std::vector<OversizedEngineRun> over;
    for (const ScaledEnginePlans* scaled : {plain, accumulating}) {
      if (!scaled) continue;
      for (std::size_t r = 0; r < scaled->by_run.size(); ++r) {
        const EnginePlan* engine_plan = scaled->by_run[r].get();
        if (!engine_plan) continue;
        const std::size_t needed = engine_plan->workspace_bytes();
        plan->wr_.workspace_bytes = std::max(plan->wr_.workspace_bytes, needed);
        if (needed > workspace_limit) over.push_back({plan->wr_.runs[r].size, plan->wr_.runs[r].engine, needed});
      }
    }
    if (!over.empty()) {
      if (oversized) *oversized = over;
      return Error(ErrorCode::kNotSupported, "engine " + over.front().engine + " needs " +
                                                 std::to_string(over.front().needed_bytes) +
                                                 " bytes of workspace with its scaling factors, over the limit of " +
                                                 std::to_string(workspace_limit));
    }
  }
  *out = std::move(plan);
  return Status::success();
}

Status ExecutablePlan::build_engine_plans(double alpha, double beta, std::unique_ptr<ScaledEnginePlans>* out) const {
  auto plans = std::make_unique<ScaledEnginePlans>();
  plans->alpha = alpha;
  plans->beta = beta;
  for (const MicroBatchRun& run : wr_.runs) {
    std::unique_ptr<EnginePlan> plan;
    if (run.is_engine()) {
      UCUDNN_TRY(EnginePlan::build(key_.with_batch(run.size), run.engine, alpha, beta, &plan));
      plans->workspace_bytes = std::max(plans->workspace_bytes, plan->workspace_bytes());
    }
    plans->by_run.push_back(std::move(plan));
  }
  *out = std::move(plans);
  return Status::success();
}

Status ExecutablePlan::engine_plans(double alpha, double beta, const ScaledEnginePlans** out) const {
  std::lock_guard<std::mutex> lock(engine_mutex_);
  for (const auto& plans : engine_plans_) {
    if (plans->alpha == alpha && plans->beta == beta) {
      *out = plans.get();
      return Status::success();
    }
  }
  std::unique_ptr<ScaledEnginePlans> built;
  UCUDNN_TRY(build_engine_plans(alpha, beta, &built));
  engine_plans_.push_back(std::move(built));
  *out = engine_plans_.back().get();
  return Status::success();
}

bool ExecutablePlan::deterministic() const {
  return wr_.deterministic() && (!replayed_ || replayed_->deterministic());
}

std::size_t ExecutablePlan::workspace_wanted() const {
  return std::max(wr_.workspace_bytes, replayed_plan().wr_.workspace_bytes);
}

Status ExecutablePlan::execute(const CallTarget& target, const void* alpha, const void* beta,
                               const ConvBuffers& buffers, void* workspace, std::size_t workspace_bytes) const {
  if (workspace_bytes < wr_.workspace_bytes) {
    return Error(ErrorCode::kBadParam, "the plan needs " + std::to_string(wr_.workspace_bytes) +
                                              " bytes of workspace, the call gave " + std::to_string(workspace_bytes));
  }
  const bool is_double = key_.x.data_type == CUDNN_DATA_DOUBLE;
  const CallSignature signature{buffers.x,       buffers.y,
                                buffers.w,       workspace,
                                workspace_bytes, scalar_bits(alpha, is_double),
                                scalar_bits(beta, is_double)};
  // A call whose workspace is too small for the replay plan replays this one. The workspace size
  // is part of the signature, so a launched graph holds the plan chosen here, or (where that
  // could not be captured) this one.
  const ExecutablePlan& captured =
      replayed_plan().wr_.workspace_bytes <= workspace_bytes ? replayed_plan() : *this;
  ReplayOutcome outcome;
  UCUDNN_TRY(replay_.run(
      key_.device, target, signature, &outcome,
      [&](cudnnHandle_t handle) { return enqueue(handle, alpha, beta, buffers, workspace, workspace_bytes); },
      [&](cudnnHandle_t handle) {
        return captured.enqueue(handle, alpha, beta, buffers, workspace, workspace_bytes);
      }));
  const ExecutablePlan& ran = outcome.replayed && !outcome.of_direct ? captured : *this;
  Statistics::instance().count_execution(key_.op, ran.wr_.micro_batch_count(), outcome.replayed);
  if (outcome.captured) Statistics::instance().add_capture(key_.op, outcome.capture_seconds);
  return Status::success();
}

Status ExecutablePlan::enqueue(cudnnHandle_t handle, const void* alpha, const void* beta, const ConvBuffers& buffers,
                               void* workspace, std::size_t workspace_bytes) const {
  // Scaling factors are double for double data, float otherwise (cuDNN's rule).
  static const float kOneFloat = 1.0f;
  static const double kOneDouble = 1.0;
  const void* one = key_.x.data_type == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&kOneDouble)
                                                          : static_cast<const void*>(&kOneFloat);
  const std::size_t x_step = static_cast<std::size_t>(key_.x.strides[0]) * element_size(key_.x.data_type);
  const std::size_t y_step = static_cast<std::size_t>(key_.y.strides[0]) * element_size(key_.y.data_type);

  const bool is_double = key_.x.data_type == CUDNN_DATA_DOUBLE;
  const ScaledEnginePlans* first_plans = nullptr;
  const ScaledEnginePlans* accumulate_plans = nullptr;
  if (has_engine_runs_) {
    const double a = is_double ? *static_cast<const double*>(alpha) : *static_cast<const float*>(alpha);
    const double b = is_double ? *static_cast<const double*>(beta) : *static_cast<const float*>(beta);
    UCUDNN_TRY(engine_plans(a, b, &first_plans));
    if (key_.op == ConvOp::kBackwardFilter && wr_.micro_batch_count() > 1) {
      UCUDNN_TRY(engine_plans(a, 1.0, &accumulate_plans));
    }
    // Checked before anything is queued: a call that fails half-way would leave the output
    // partly written for the fallback to plain cuDNN (wrong where beta is not 0).
    if (!engine_aligned(buffers.x) || !engine_aligned(buffers.w) || !engine_aligned(buffers.y) ||
        !engine_aligned(workspace)) {
      return Error(ErrorCode::kNotSupported, "engine plans need 16-byte aligned pointers");
    }
    // Scaling factors other than those built with the plan may need more workspace.
    for (const ScaledEnginePlans* scaled : {first_plans, accumulate_plans}) {
      if (scaled && scaled->workspace_bytes > workspace_bytes) {
        return Error(ErrorCode::kNotSupported, "the plan's engines need " + std::to_string(scaled->workspace_bytes) +
                                                   " bytes of workspace with these scaling factors");
      }
    }
  }

  std::size_t offset = 0;
  bool first = true;
  for (std::size_t r = 0; r < wr_.runs.size(); ++r) {
    const MicroBatchRun& run = wr_.runs[r];
    ConvDescriptors d;
    if (!run.is_engine()) {
      d.x = x_by_size_.at(run.size).get();
      d.y = y_by_size_.at(run.size).get();
      d.w = filter_.get();
      d.conv = conv_by_math_.at(run.math_type).get();
    }
    for (int i = 0; i < run.count; ++i) {
      ConvBuffers micro;
      micro.x = static_cast<char*>(buffers.x) + offset * x_step;
      micro.y = static_cast<char*>(buffers.y) + offset * y_step;
      micro.w = buffers.w;
      const bool accumulate = key_.op == ConvOp::kBackwardFilter && !first;
      if (run.is_engine()) {
        const ScaledEnginePlans* plans = accumulate ? accumulate_plans : first_plans;
        UCUDNN_TRY(plans->by_run[r]->execute(handle, micro, workspace, workspace_bytes));
      } else {
        UCUDNN_TRY(
            convolve(handle, key_.op, d, run.algo, alpha, micro, workspace, workspace_bytes, accumulate ? one : beta));
      }
      offset += static_cast<std::size_t>(run.size);
      first = false;
    }
  }
  return Status::success();
}

}  // namespace ucudnn
