// The runtime half of the engine kind (core/candidate_kinds.h): the engine configurations cuDNN's
// graph API offers (runtime/backend_graph.h), each measured and run from an execution plan.
//
// Engine plans hold their scaling factors (the graph API has no per-call alpha and beta): a plan's
// runner builds those for alpha = 1, beta = 0 and, for backward filter's accumulating
// micro-batches, beta = 1 (beta = -1 where the split sums in FP32) with the plan; any other pair
// is built on its first call and kept.
//
// The offers are searched by runtime/candidate_search.h's loop; the exhaustive search builds and
// times every offer.

#include <algorithm>
#include <limits>
#include <mutex>
#include <optional>

#include "core/logging.h"
#include "core/statistics.h"
#include "optimize/channel_pieces.h"
#include "optimize/wr_optimizer.h"
#include "runtime/backend_graph.h"
#include "runtime/benchmark_rig.h"
#include "runtime/candidate_runtime.h"
#include "runtime/candidate_search.h"

namespace ucudnn::runtime {
using ucudnn::optimize::MicroBatchRun;
using ucudnn::optimize::MicroBatchSplit;

namespace {

class EngineMeasurer final : public KindMeasurer {
 public:
  // Engine plans say their workspace only once built: the rig's workspace grows as they are
  // measured, and the rows are complete for any limit until one cannot have what it needs.
  explicit EngineMeasurer(BenchmarkRig& rig) : rig_(rig) {}

  Status measure(const SizeRequest& request, std::vector<Measurement>* measured) override {
    const int micro_batch = request.micro_batch;
    const std::vector<Measurement>& known = *request.measured_before;
    const ConvKey micro = rig_.key().with_batch(micro_batch);
    std::vector<EngineOffer> offers;
    {
      const SearchPhaseClock clock(micro.op, SearchPhase::kHeuristics);
      UCUDNN_TRY(offer_engines(micro, rig_.settings().engine_knobs, &offers));
    }
    const ConvBuffers buffers = rig_.buffers();
    auto same = [&](std::size_t i, const Measurement& row) { return row.candidate.engine_id == offers[i].id; };
    auto pass_over = [&](std::size_t i) {
      return std::any_of(known.begin(), known.end(), [&](const Measurement& m) { return same(i, m); });
    };
    auto time = [&](std::size_t i, const Contenders& contenders, std::optional<Measurement>* timed) -> Status {
      const EngineOffer& offer = offers[i];
      std::unique_ptr<CudnnExecutionPlan> plan;
      std::optional<SearchPhaseClock> building(std::in_place, micro.op, SearchPhase::kPlanBuild);
      Statistics::instance().count_search(micro.op, SearchCount::kPlansBuilt);
      const Status built = CudnnExecutionPlan::build(micro, offer.id, 1.0, 0.0, &plan);
      if (!built.ok()) {
        UCUDNN_LOG_DEBUG("skipping " << offer.id << " at micro-batch " << micro_batch << ": " << built.message());
        return Status::success();
      }
      // Backward filter's later micro-batches accumulate (beta = 1), and some engines need more
      // workspace for that: the row records what the engine needs in either role. An engine that
      // cannot accumulate is left out: the planner could not tell where it may run.
      std::size_t workspace_needed = plan->workspace_bytes();
      if (micro.op == ConvOp::kBackwardFilter) {
        std::unique_ptr<CudnnExecutionPlan> accumulating;
        const Status accumulates = CudnnExecutionPlan::build(micro, offer.id, 1.0, 1.0, &accumulating);
        if (!accumulates.ok()) {
          UCUDNN_LOG_DEBUG("skipping " << offer.id << " at micro-batch " << micro_batch
                                       << ": it cannot accumulate: " << accumulates.message());
          return Status::success();
        }
        workspace_needed = std::max(workspace_needed, accumulating->workspace_bytes());
      }
      building.reset();
      if (!rig_.grow_workspace(workspace_needed)) {
        // The rows are complete only up to the workspace that could be had.
        measured_up_to_ = std::min(measured_up_to_, rig_.workspace_bytes());
        return Status::success();
      }
      BenchmarkRig::CallTimes times;
      const Status run = rig_.time_candidate(
          [&] { return plan->execute(rig_.handle(), buffers, rig_.workspace(), rig_.workspace_bytes()); }, &times,
          contenders.bound_for(workspace_needed));
      if (!run.ok()) {
        UCUDNN_LOG_DEBUG("skipping " << offer.id << " at micro-batch " << micro_batch << ": " << run.message());
        return Status::success();
      }
      Measurement m;
      m.candidate = Candidate::engine(offer.id, micro.conv.math_type);
      m.micro_batch = micro_batch;
      m.time_ms = times.gpu_ms;
      m.host_ms = times.host_ms;
      m.workspace_bytes = workspace_needed;
      m.deterministic = offer.deterministic;
      *timed = std::move(m);
      return Status::success();
    };
    const bool fast = rig_.settings().mode == SearchMode::kFast;
    UCUDNN_TRY(search_candidates(offers.size(), request, fast, micro.op, same, pass_over, time, measured));
    if (rig_.settings().engine_knobs != KnobSearch::kRefine) return Status::success();

    // Refined: the configurations one knob away from the fastest engine configuration within the
    // limit at this size, searched as the offers were (cut short, and with the fast search's patience).
    std::vector<Measurement> before = known;
    before.insert(before.end(), measured->begin(), measured->end());
    const std::optional<Measurement> fastest = optimize::fastest_within(before, micro_batch, request.workspace_limit);
    if (!fastest) return Status::success();
    {
      const SearchPhaseClock clock(micro.op, SearchPhase::kHeuristics);
      const Status listed = knob_neighbours(micro, fastest->candidate.engine_id, &offers);
      if (!listed.ok()) {
        UCUDNN_LOG_DEBUG("no knob neighbours of " << fastest->candidate.engine_id << ": " << listed.message());
        return Status::success();
      }
    }
    SizeRequest refined = request;
    refined.measured_before = &before;
    auto known_before = [&](std::size_t i) {
      return std::any_of(before.begin(), before.end(), [&](const Measurement& m) { return same(i, m); });
    };
    return search_candidates(offers.size(), refined, fast, micro.op, same, known_before, time, measured);
  }

  std::size_t measured_up_to() const override { return measured_up_to_; }

 private:
  BenchmarkRig& rig_;
  std::size_t measured_up_to_ = std::numeric_limits<std::size_t>::max();
};

Status make_engine_measurer(BenchmarkRig& rig, std::unique_ptr<KindMeasurer>* out) {
  *out = std::make_unique<EngineMeasurer>(rig);
  return Status::success();
}

// A plan's engine runs: their execution plans, per pair of scaling factors.
class EngineRunner final : public KindRunner {
 public:
  static Status make(const ConvKey& key, const MicroBatchSplit& wr, std::size_t workspace_limit,
                     std::unique_ptr<KindRunner>* out, std::vector<OversizedEngineRun>* oversized) {
    std::unique_ptr<EngineRunner> runner(new EngineRunner());
    for (const MicroBatchRun& run : wr.runs) {
      const Candidate& c = run.candidate();
      runner->runs_.push_back(Run{run.size(), c.kind == CandidateKind::kEngine ? c.engine_id : std::string(),
                                  optimize::piece_key_of(key, c)});
    }
    const ScaledExecutionPlans* plain = nullptr;
    const ScaledExecutionPlans* accumulating = nullptr;
    UCUDNN_TRY(runner->plans_for(1.0, 0.0, &plain));
    // Summed in FP32, a split's second call of each micro-batch has beta = -1 instead.
    if (wr.later_calls_accumulate(key.op)) {
      UCUDNN_TRY(runner->plans_for(1.0, wr.sums_in_fp32 ? -1.0 : 1.0, &accumulating));
    }
    // An engine may need more workspace with beta = 1 than with beta = 0: the plan asks for what
    // its calls need, within the limit.
    std::vector<OversizedEngineRun> over;
    for (const ScaledExecutionPlans* scaled : {plain, accumulating}) {
      if (!scaled) continue;
      for (std::size_t r = 0; r < scaled->by_run.size(); ++r) {
        const CudnnExecutionPlan* engine_plan = scaled->by_run[r].get();
        if (!engine_plan) continue;
        const std::size_t needed = engine_plan->workspace_bytes();
        runner->workspace_bytes_ = std::max(runner->workspace_bytes_, needed);
        if (needed > workspace_limit) over.push_back({wr.runs[r].size(), wr.runs[r].candidate().engine_id, needed});
      }
    }
    if (!over.empty()) {
      if (oversized) *oversized = over;
      return Error(ErrorCode::kNotSupported, "engine " + over.front().engine + " needs " +
                                                 std::to_string(over.front().needed_bytes) +
                                                 " bytes of workspace with its scaling factors, over the limit of " +
                                                 std::to_string(workspace_limit));
    }
    *out = std::move(runner);
    return Status::success();
  }

  std::size_t workspace_bytes() const override { return workspace_bytes_; }

  Status check_call(const CallScaling& scaling, const ConvBuffers& buffers, const void* workspace,
                    std::size_t workspace_bytes) const override {
    if (!scaling.given) return Error(ErrorCode::kBadParam, "engine plans need the call's alpha and beta");
    const ScaledExecutionPlans* first_plans = nullptr;
    const ScaledExecutionPlans* accumulate_plans = nullptr;
    if (scaling.sums_in_fp32) {
      UCUDNN_TRY(plans_for(scaling.alpha, 0.0, &first_plans));
      UCUDNN_TRY(plans_for(scaling.alpha, -1.0, &accumulate_plans));
    } else {
      UCUDNN_TRY(plans_for(scaling.alpha, scaling.beta, &first_plans));
      if (scaling.accumulates) UCUDNN_TRY(plans_for(scaling.alpha, 1.0, &accumulate_plans));
    }
    if (!engine_aligned(buffers.x) || !engine_aligned(buffers.w) || !engine_aligned(buffers.y) ||
        !engine_aligned(workspace)) {
      return Error(ErrorCode::kNotSupported, "engine plans need 16-byte aligned pointers");
    }
    // Scaling factors other than those built with the plan may need more workspace.
    for (const ScaledExecutionPlans* scaled : {first_plans, accumulate_plans}) {
      if (scaled && scaled->workspace_bytes > workspace_bytes) {
        return Error(ErrorCode::kNotSupported, "the plan's engines need " + std::to_string(scaled->workspace_bytes) +
                                                   " bytes of workspace with these scaling factors");
      }
    }
    return Status::success();
  }

  Status enqueue(cudnnHandle_t handle, std::size_t r, const MicroBatchCall& call) const override {
    const ScaledExecutionPlans* plans = nullptr;
    UCUDNN_TRY(plans_for(call.alpha_value, call.beta_value, &plans));  // built by check_call
    return plans->by_run[r]->execute(handle, call.buffers, call.workspace, call.workspace_bytes);
  }

 private:
  EngineRunner() = default;
  struct Run {
    int size = 0;
    std::string engine;  ///< empty: a run of another kind
    ConvKey shape;       ///< the kernel its calls run: a channel piece's (optimize/channel_pieces.h), or the plan's
  };
  /// The engine plans of every run (null for runs of other kinds) for one pair of scaling factors.
  struct ScaledExecutionPlans {
    double alpha = 1.0, beta = 0.0;
    std::vector<std::unique_ptr<CudnnExecutionPlan>> by_run;
    std::size_t workspace_bytes = 0;  ///< the most any of them needs (checked per call)
  };

  /// The plans for (alpha, beta), built now if they were not.
  Status plans_for(double alpha, double beta, const ScaledExecutionPlans** out) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& plans : plans_) {
      if (plans->alpha == alpha && plans->beta == beta) {
        *out = plans.get();
        return Status::success();
      }
    }
    auto built = std::make_unique<ScaledExecutionPlans>();
    built->alpha = alpha;
    built->beta = beta;
    for (const Run& run : runs_) {
      std::unique_ptr<CudnnExecutionPlan> plan;
      if (!run.engine.empty()) {
        UCUDNN_TRY(CudnnExecutionPlan::build(run.shape.with_batch(run.size), run.engine, alpha, beta, &plan));
        built->workspace_bytes = std::max(built->workspace_bytes, plan->workspace_bytes());
      }
      built->by_run.push_back(std::move(plan));
    }
    plans_.push_back(std::move(built));
    *out = plans_.back().get();
    return Status::success();
  }

  std::vector<Run> runs_;             ///< by the plan's run index
  std::size_t workspace_bytes_ = 0;  ///< the most the plans built with the plan need
  mutable std::mutex mutex_;
  mutable std::vector<std::unique_ptr<ScaledExecutionPlans>> plans_;  ///< never shrinks
};

Status make_engine_runner(const ConvKey& key, const MicroBatchSplit& wr, std::size_t workspace_limit,
                          std::unique_ptr<KindRunner>* out, std::vector<OversizedEngineRun>* oversized) {
  return EngineRunner::make(key, wr, workspace_limit, out, oversized);
}

}  // namespace

const CandidateKindRuntime& engine_candidates_runtime() {
  static const CandidateKindRuntime runtime{make_engine_measurer, make_engine_runner};
  return runtime;
}

}  // namespace ucudnn::runtime
