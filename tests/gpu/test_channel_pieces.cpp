// Output-channel pieces (optimize/channel_pieces.h) on the GPU: random convolutions, each op cut
// into 2, 4 or 8 pieces of its output channels (and at random into micro-batches as well), run by
// the executor with a legacy algorithm plain cuDNN runs and with the first engine cuDNN offers for
// the piece, against plain cuDNN's algorithm on the whole batch and all channels. Forward and
// backward filter pieces write disjoint slices; backward data's add into dx (FP32 only). Layouts
// NCHW, NHWC and padded NCHW; FP32 (FMA and default math), FP16 and BF16; 2-d and 3-d; alpha/beta.
// Tolerances: conv_check.h's (the same algorithm: 1e-4 FP32 FMA, 5e-3 TF32, 1e-2 FP16, 2e-2
// BF16; an engine against a legacy algorithm: 5e-2, which a wrong slice exceeds by far). Where the
// host can afford it (kHostMultiplyAdds), legacy algorithms' pieces also meet the bound of
// docs/how-it-works.md against an FP64 reference: within twice the error of the same algorithm
// run undivided by plain cuDNN (floored at fp64_reference.h's accuracy_floor: half the type's
// unit roundoff, TF32's whole one where default math lets cuDNN round inputs to it). Engines are not: an engine configuration offered for a piece
// is not one of the whole kernel (run on it, one hung the GPU).

#include <algorithm>

#include "conv_check.h"
#include "fp64_reference.h"
#include "core/conv_key.h"
#include "optimize/channel_pieces.h"
#include "runtime/backend_graph.h"
#include "runtime/executor.h"

namespace ucudnn_test {
namespace {

constexpr double kHostMultiplyAdds = 2e7;  // an FP64 reference of well under a second

class ChannelPieces : public PlanExecutionTest {};

// A random convolution with output channels that split into pieces of 8 or more.
ConvSpec piece_spec(std::mt19937& rng) {
  ConvSpec spec = random_spec(rng);
  spec.groups = 1;
  spec.c = std::uniform_int_distribution<int>(1, 40)(rng);
  static const int kChannels[] = {16, 32, 48, 64};
  spec.k = kChannels[std::uniform_int_distribution<int>(0, 3)(rng)];
  random_precision(rng, &spec);
  return spec;
}

// A random split whose every micro-batch runs `algo` (-1: `engine`) in `pieces` output-channel pieces.
ucudnn::optimize::MicroBatchSplit pieces_split(int n, int pieces, int algo, cudnnMathType_t math,
                                               const std::string& engine, std::mt19937& rng) {
  return random_split(n, run_of(n, algo, math, engine).candidate().in_channel_pieces(pieces), rng);
}

TEST_F(ChannelPieces, PiecesOfOutputChannelsMatchPlainCudnnOnTheWholeKernel) {
  SeededRng rng;
  int checked = 0, engines_checked = 0, data_checked = 0, refused = 0, fp64_checked = 0;
  double worst_ratio = 0;
  UcudnnSplitStatistics kinds_before{sizeof(UcudnnSplitStatistics), {}, {}};
  CUDNN_OK(ucudnnGetSplitStatistics(&kinds_before));
  long long piece_calls_before = 0;
  for (int op = 0; op < 3; ++op) piece_calls_before += kinds_before.op[op].channelPieceCalls;
  for (int i = 0; i < 60; ++i) {
    const ConvSpec spec = piece_spec(rng);
    ConvProblem p(spec);
    if (!p.ok) continue;
    for (int op_index = 0; op_index < 3; ++op_index) {
      const auto op = static_cast<UcudnnConvolutionOp_t>(op_index);
      ucudnn::ConvKey key;
      ASSERT_TRUE(conv_key_of(p, op, &key));
      const std::vector<int> counts = ucudnn::optimize::channel_piece_counts(key);
      if (op == UCUDNN_OP_BACKWARD_DATA && spec.data_type != CUDNN_DATA_FLOAT) {
        EXPECT_TRUE(counts.empty()) << "half-precision backward data would round every piece's sum";
        continue;
      }
      ASSERT_FALSE(counts.empty()) << spec.describe();
      const int pieces = counts[std::uniform_int_distribution<std::size_t>(0, counts.size() - 1)(rng)];
      const int algo = plain_heuristic_algo(plain_, p, op, kAmpleWorkspace);
      if (algo < 0) continue;
      const ucudnn::ConvKey piece = ucudnn::optimize::channel_piece_key(key, pieces);
      std::vector<ucudnn::optimize::MicroBatchSplit> splits = {
          pieces_split(spec.n, pieces, algo, spec.math, "", rng)};
      std::vector<ucudnn::runtime::EngineOffer> offers;
      if (ucudnn::runtime::offer_engines(piece.with_batch(1), ucudnn::KnobSearch::kHeuristics, &offers).ok() &&
          !offers.empty()) {
        splits.push_back(pieces_split(spec.n, pieces, -1, spec.math, offers.front().id, rng));
      }
      const auto& scale = kScales[std::uniform_int_distribution<int>(0, 2)(rng)];
      OpTensors t(p, op);
      ASSERT_TRUE(t.allocated());
      t.fill_random(rng);
      ASSERT_EQ(t.run_reference(plain_, algo, scale[0], scale[1], workspace_->get(), kAmpleWorkspace),
                CUDNN_STATUS_SUCCESS);
      DeviceArray start(t.output().elements(), spec.data_type);  // what beta reads, for each plan
      ASSERT_TRUE(start.get());
      start.copy_from(t.output());
      std::vector<double> want;
      if (multiply_adds(p) <= kHostMultiplyAdds) {
        want = fp64_reference(p, op, t.x.download(), t.y.download(), t.w.download(), start.download(), scale[0],
                              scale[1]);
      }
      for (const auto& split : splits) {
        const bool engine = !split.runs.front().candidate().engine_id.empty();
        SCOPED_TRACE(spec.describe() + " op " + std::to_string(op) + " in " + std::to_string(pieces) + " pieces, " +
                     std::to_string(split.runs.size()) + " micro-batches, " +
                     (engine ? split.runs.front().candidate().engine_id : "algo " + std::to_string(algo)) + ", beta " +
                     std::to_string(scale[1]));
        // Against FP64, legacy algorithms only: the undivided call of the same algorithm is plain
        // cuDNN's reference run.
        const SplitRun run = run_split_checked(plain_, key, split, t, start, scale, tolerance(spec, !engine),
                                               engine ? std::vector<double>{} : want, workspace_->get());
        if (!run.ran) {  // cuDNN refuses the strided slice with this algorithm
          ++refused;
          continue;
        }
        ++checked;
        if (engine) ++engines_checked;
        if (op == UCUDNN_OP_BACKWARD_DATA) ++data_checked;
        if (run.fp64_ratio >= 0) {
          worst_ratio = std::max(worst_ratio, run.fp64_ratio);
          ++fp64_checked;
        }
      }
    }
  }
  UcudnnSplitStatistics kinds{sizeof(UcudnnSplitStatistics), {}, {}};
  CUDNN_OK(ucudnnGetSplitStatistics(&kinds));
  long long piece_calls = 0;
  for (int op = 0; op < 3; ++op) piece_calls += kinds.op[op].channelPieceCalls;
  EXPECT_EQ(piece_calls - piece_calls_before, checked) << "the statistics count every call run in pieces";
  std::printf(
      "[ pieces ] seed %u: %d piece plans checked (%d of engines, %d backward data), %d refused by cuDNN; "
      "%d against FP64, worst error %.2fx the undivided call's\n",
      rng.first_seed, checked, engines_checked, data_checked, refused, fp64_checked, worst_ratio);
  EXPECT_GE(checked, 60);
  EXPECT_GE(engines_checked, 10);
  EXPECT_GE(data_checked, 10);
  EXPECT_GE(fp64_checked, 15);
}

// Forward's input-channel pieces: each piece on a slice of x's channels and a copy of the filter's
// slice, adding into y (FP32, FMA and default math; NCHW, NHWC, padded NCHW; 2-d and 3-d; alpha and
// beta). Same tolerances and FP64 bound as the output pieces'.
TEST_F(ChannelPieces, InputChannelPiecesOfForwardMatchPlainCudnnOnTheWholeKernel) {
  SeededRng rng;
  int checked = 0, engines_checked = 0, refused = 0, fp64_checked = 0;
  double worst_ratio = 0;
  for (int i = 0; i < 40; ++i) {
    ConvSpec spec = piece_spec(rng);
    spec.data_type = CUDNN_DATA_FLOAT;
    spec.math = std::uniform_int_distribution<int>(0, 1)(rng) ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
    static const int kInputChannels[] = {16, 32, 48, 64};
    spec.c = kInputChannels[std::uniform_int_distribution<int>(0, 3)(rng)];
    ConvProblem p(spec);
    if (!p.ok) continue;
    ucudnn::ConvKey key;
    ASSERT_TRUE(conv_key_of(p, UCUDNN_OP_FORWARD, &key));
    const std::vector<int> counts = ucudnn::optimize::input_piece_counts(key);
    ASSERT_FALSE(counts.empty()) << spec.describe();
    const int pieces = counts[std::uniform_int_distribution<std::size_t>(0, counts.size() - 1)(rng)];
    const int algo = plain_heuristic_algo(plain_, p, UCUDNN_OP_FORWARD, kAmpleWorkspace);
    if (algo < 0) continue;
    auto input_split = [&](int run_algo, const std::string& engine) {
      return random_split(spec.n, run_of(spec.n, run_algo, spec.math, engine).candidate().in_input_pieces(pieces), rng);
    };
    std::vector<ucudnn::optimize::MicroBatchSplit> splits = {input_split(algo, "")};
    std::vector<ucudnn::runtime::EngineOffer> offers;
    const ucudnn::ConvKey piece = ucudnn::optimize::input_piece_key(key, pieces);
    if (ucudnn::runtime::offer_engines(piece.with_batch(1), ucudnn::KnobSearch::kHeuristics, &offers).ok() &&
        !offers.empty()) {
      splits.push_back(input_split(-1, offers.front().id));
    }
    const auto& scale = kScales[std::uniform_int_distribution<int>(0, 2)(rng)];
    OpTensors t(p, UCUDNN_OP_FORWARD);
    ASSERT_TRUE(t.allocated());
    t.fill_random(rng);
    ASSERT_EQ(t.run_reference(plain_, algo, scale[0], scale[1], workspace_->get(), kAmpleWorkspace),
              CUDNN_STATUS_SUCCESS);
    DeviceArray start(t.output().elements(), spec.data_type);
    ASSERT_TRUE(start.get());
    start.copy_from(t.output());
    std::vector<double> want;
    if (multiply_adds(p) <= kHostMultiplyAdds) {
      want = fp64_reference(p, UCUDNN_OP_FORWARD, t.x.download(), t.y.download(), t.w.download(), start.download(),
                            scale[0], scale[1]);
    }
    for (const auto& split : splits) {
      const bool engine = !split.runs.front().candidate().engine_id.empty();
      SCOPED_TRACE(spec.describe() + " in " + std::to_string(pieces) + " input pieces, " +
                   std::to_string(split.runs.size()) + " micro-batches, " +
                   (engine ? split.runs.front().candidate().engine_id : "algo " + std::to_string(algo)) + ", beta " +
                   std::to_string(scale[1]));
      // Another order of additions than the reference's: the tolerance of another algorithm.
      const SplitRun run =
          run_split_checked(plain_, key, split, t, start, scale, tolerance(spec, false), want, workspace_->get());
      if (!run.ran) {
        ++refused;
        continue;
      }
      ++checked;
      if (engine) ++engines_checked;
      if (run.fp64_ratio >= 0) {
        worst_ratio = std::max(worst_ratio, run.fp64_ratio);
        ++fp64_checked;
      }
    }
  }
  std::printf(
      "[ pieces ] seed %u: %d input-piece plans checked (%d of engines), %d refused by cuDNN; %d against FP64, "
      "worst error %.2fx the undivided call's\n",
      rng.first_seed, checked, engines_checked, refused, fp64_checked, worst_ratio);
  EXPECT_GE(checked, 40);
  EXPECT_GE(engines_checked, 10);
  EXPECT_GE(fp64_checked, 10);
}

}  // namespace
}  // namespace ucudnn_test
