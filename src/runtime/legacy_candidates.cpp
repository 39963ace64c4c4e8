// The runtime half of the legacy kind (core/candidate_kinds.h): cuDNN's legacy algorithms,
// listed by cudnnFind*AlgorithmEx (exhaustive search) or by cuDNN's heuristics (fast search: Find
// would time every algorithm once more before ucudnn does), each timed by ucudnn, and run with
// the legacy convolution calls (runtime/cudnn_shim.h).

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "core/logging.h"
#include "core/statistics.h"
#include "optimize/channel_pieces.h"
#include "runtime/benchmark_rig.h"
#include "runtime/candidate_runtime.h"
#include "runtime/candidate_search.h"
#include "runtime/descriptors.h"
#include "runtime/scaling_factors.h"

namespace ucudnn::runtime {
using ucudnn::optimize::MicroBatchRun;
using ucudnn::optimize::MicroBatchSplit;

namespace {

class LegacyMeasurer final : public KindMeasurer {
 public:
  explicit LegacyMeasurer(BenchmarkRig& rig) : rig_(rig) {}

  // Rows are measured unfiltered: the workspace is what the hungriest algorithm needs on the whole
  // batch (so the rows serve any limit), or what the device can spare.
  Status prepare() {
    const ConvKey& key = rig_.key();
    std::size_t needed = 0;
    {
      const SearchPhaseClock clock(key.op, SearchPhase::kSetup);
      TensorDescriptor x, y;
      ConvolutionDescriptor conv;
      UCUDNN_TRY(make_tensor_descriptor(key.x, &x));
      UCUDNN_TRY(make_tensor_descriptor(key.y, &y));
      UCUDNN_TRY(make_convolution_descriptor(key.conv, key.conv.math_type, &conv));
      for (int algo = 0; algo < algo_count(key.op); ++algo) {
        std::size_t bytes = 0;
        if (workspace_size(rig_.handle(), key.op, {x.get(), rig_.filter(), conv.get(), y.get()}, algo, &bytes).ok()) {
          needed = std::max(needed, bytes);
        }
      }
    }
    UCUDNN_TRY(rig_.allocate_workspace(needed));
    const std::size_t bytes = rig_.workspace_bytes();
    measured_up_to_ = bytes >= needed ? std::numeric_limits<std::size_t>::max() : bytes;
    if (bytes < needed) {
      UCUDNN_LOG_INFO("benchmarking " << key.to_string() << " with " << bytes << " bytes of workspace, not the "
                                      << needed << " its hungriest algorithm needs: the device has no more free");
    }
    return Status::success();
  }

  Status measure(const SizeRequest& request, std::vector<Measurement>* measured) override {
    const int micro_batch = request.micro_batch;
    const std::vector<Measurement>& known = *request.measured_before;
    const ConvKey& key = rig_.key();
    const ConvKey micro = key.with_batch(micro_batch);
    TensorDescriptor x_desc, y_desc;
    ConvolutionDescriptor caller_conv;
    UCUDNN_TRY(make_tensor_descriptor(micro.x, &x_desc));
    UCUDNN_TRY(make_tensor_descriptor(micro.y, &y_desc));
    UCUDNN_TRY(make_convolution_descriptor(micro.conv, micro.conv.math_type, &caller_conv));
    const ConvDescriptors d{x_desc.get(), rig_.filter(), caller_conv.get(), y_desc.get()};

    std::vector<AlgoPerf> candidates;
    const ConvBuffers buffers = rig_.buffers();
    const ScalingFactor one(key, 1.0), zero(key, 0.0);
    const void* alpha = one.get();
    const void* beta = zero.get();
    if (rig_.settings().mode == SearchMode::kFast) {
      // The heuristics' order puts the likely fastest first, so later ones can be cut short.
      const SearchPhaseClock clock(key.op, SearchPhase::kHeuristics);
      UCUDNN_TRY(get_algorithms(rig_.handle(), key.op, d, &candidates));
    } else {
      const SearchPhaseClock clock(key.op, SearchPhase::kFind);
      UCUDNN_TRY(find_algorithms_ex(rig_.handle(), key.op, d, buffers, rig_.workspace(), rig_.workspace_bytes(),
                                    &candidates));
    }
    // A caller that forbids tensor-core rounding keeps FMA math in every micro-kernel.
    auto math_of = [&](const AlgoPerf& c) {
      return micro.conv.math_type == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : static_cast<int>(c.math_type);
    };
    auto is_candidate = [&](const AlgoPerf& c, const Measurement& m) {
      return m.candidate == Candidate::legacy(c.algo, math_of(c));
    };
    auto same = [&](std::size_t i, const Measurement& row) { return is_candidate(candidates[i], row); };
    // Failed or too hungry for the workspace in cuDNN's list, measured before, or listed twice
    // (Find lists an algorithm once per math type it tried).
    auto pass_over = [&](std::size_t i) {
      const AlgoPerf& c = candidates[i];
      return c.status != CUDNN_STATUS_SUCCESS || c.memory > rig_.workspace_bytes() ||
             std::any_of(known.begin(), known.end(), [&](const Measurement& m) { return same(i, m); }) ||
             std::any_of(measured->begin(), measured->end(), [&](const Measurement& m) { return is_candidate(c, m); });
    };
    auto time = [&](std::size_t i, const Contenders& contenders, std::optional<Measurement>* timed) -> Status {
      const AlgoPerf& c = candidates[i];
      const int math = math_of(c);
      if (!conv_by_math_.count(math)) {
        UCUDNN_TRY(make_convolution_descriptor(micro.conv, math, &conv_by_math_[math]));
      }
      ConvDescriptors with_math = d;  // the candidate's math type on the caller's convolution
      with_math.conv = conv_by_math_.at(math).get();
      std::size_t workspace = 0;
      if (!workspace_size(rig_.handle(), key.op, with_math, c.algo, &workspace).ok()) workspace = c.memory;
      workspace = std::max(workspace, c.memory);
      // The heuristics list algorithms that Find would have left out for want of workspace.
      if (workspace > rig_.workspace_bytes()) return Status::success();
      BenchmarkRig::CallTimes times;
      const Status run = rig_.time_candidate(
          [&] {
            return convolve(rig_.handle(), key.op, with_math, c.algo, alpha, buffers, rig_.workspace(),
                            rig_.workspace_bytes(), beta);
          },
          &times, contenders.bound_for(workspace));
      if (!run.ok()) {
        UCUDNN_LOG_DEBUG("skipping algo " << c.algo << " at micro-batch " << micro_batch << ": " << run.message());
        return Status::success();
      }
      Measurement m;
      m.candidate = Candidate::legacy(c.algo, math);
      m.micro_batch = micro_batch;
      m.time_ms = times.gpu_ms;
      m.host_ms = times.host_ms;
      m.workspace_bytes = workspace;
      m.deterministic = c.determinism == CUDNN_DETERMINISTIC;
      *timed = m;
      return Status::success();
    };
    return search_candidates(candidates.size(), request, rig_.settings().mode == SearchMode::kFast, key.op, same,
                             pass_over, time, measured);
  }

  std::size_t measured_up_to() const override { return measured_up_to_; }

 private:
  BenchmarkRig& rig_;
  std::size_t measured_up_to_ = 0;
  std::map<int, ConvolutionDescriptor> conv_by_math_;
};

Status make_legacy_measurer(BenchmarkRig& rig, std::unique_ptr<KindMeasurer>* out) {
  auto measurer = std::make_unique<LegacyMeasurer>(rig);
  UCUDNN_TRY(measurer->prepare());
  *out = std::move(measurer);
  return Status::success();
}

// A plan's legacy runs: the descriptors of their micro-batch sizes, output-channel pieces and math
// types, made once.
class LegacyRunner final : public KindRunner {
 public:
  static Status make(const ConvKey& key, const MicroBatchSplit& wr, std::unique_ptr<KindRunner>* out) {
    std::unique_ptr<LegacyRunner> runner(new LegacyRunner());
    runner->op_ = key.op;
    runner->runs_.resize(wr.runs.size());
    for (std::size_t r = 0; r < wr.runs.size(); ++r) {
      const Candidate& run = wr.runs[r].candidate();
      if (run.kind != CandidateKind::kLegacy) continue;
      const Pieces pieces{run.channel_pieces, run.input_pieces};
      const ConvKey shape = optimize::piece_key_of(key, run);
      const std::pair<int, Pieces> size_and_pieces{wr.runs[r].size(), pieces};
      if (!runner->x_by_size_.count(size_and_pieces)) {
        const ConvKey micro = shape.with_batch(wr.runs[r].size());
        UCUDNN_TRY(make_tensor_descriptor(micro.x, &runner->x_by_size_[size_and_pieces]));
        UCUDNN_TRY(make_tensor_descriptor(micro.y, &runner->y_by_size_[size_and_pieces]));
      }
      if (!runner->filter_by_pieces_.count(pieces)) {
        UCUDNN_TRY(make_filter_descriptor(shape.w, &runner->filter_by_pieces_[pieces]));
      }
      if (!runner->conv_by_math_.count(run.math_type)) {
        UCUDNN_TRY(make_convolution_descriptor(key.conv, run.math_type, &runner->conv_by_math_[run.math_type]));
      }
      runner->runs_[r] = Run{
          ConvDescriptors{runner->x_by_size_.at(size_and_pieces).get(), runner->filter_by_pieces_.at(pieces).get(),
                          runner->conv_by_math_.at(run.math_type).get(), runner->y_by_size_.at(size_and_pieces).get()},
          run.algorithm};
    }
    *out = std::move(runner);
    return Status::success();
  }

  std::size_t workspace_bytes() const override { return 0; }

  Status check_call(const CallScaling&, const ConvBuffers&, const void*, std::size_t) const override {
    return Status::success();
  }

  Status enqueue(cudnnHandle_t handle, std::size_t r, const MicroBatchCall& call) const override {
    const Run& run = runs_[r];
    return convolve(handle, op_, run.descriptors, run.algo, call.alpha, call.buffers, call.workspace,
                    call.workspace_bytes, call.beta);
  }

 private:
  LegacyRunner() = default;
  struct Run {
    ConvDescriptors descriptors;
    int algo = 0;
  };
  ConvOp op_ = ConvOp::kForward;
  using Pieces = std::pair<int, int>;  ///< output- and input-channel pieces: one piece kernel each
  std::map<Pieces, FilterDescriptor> filter_by_pieces_;
  std::map<std::pair<int, Pieces>, TensorDescriptor> x_by_size_, y_by_size_;  ///< by micro-batch size and pieces
  std::map<int, ConvolutionDescriptor> conv_by_math_;
  std::vector<Run> runs_;  ///< by the plan's run index; only legacy runs are filled
};

Status make_legacy_runner(const ConvKey& key, const MicroBatchSplit& wr, std::size_t, std::unique_ptr<KindRunner>* out,
                          std::vector<OversizedEngineRun>*) {
  return LegacyRunner::make(key, wr, out);
}

}  // namespace

const CandidateKindRuntime& legacy_candidates_runtime() {
  static const CandidateKindRuntime runtime{make_legacy_measurer, make_legacy_runner};
  return runtime;
}

}  // namespace ucudnn::runtime
