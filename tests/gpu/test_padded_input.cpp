// The input padded with zero channels (optimize/padded_input.h) on the GPU: random first layers
// (1 to 3 input channels), forward and backward filter, run by the executor on the padded copy with
// the algorithm plain cuDNN's heuristics pick for the 4-channel kernel and with the first engine
// cuDNN offers for it, whole or in random micro-batches (a half-precision backward filter's then
// summed in FP32), against plain cuDNN on the caller's kernel. Layouts NCHW, NHWC and padded NCHW;
// FP32 (FMA and default math), FP16 and BF16; 2-d and 3-d; alpha/beta (backward filter's beta
// applied as the gradient is copied out).
// Tolerances: the plan's algorithm is not the reference's, so conv_check.h's 5e-2 for another
// algorithm (a wrong channel or a lost micro-batch exceeds it by far); where the host can afford
// it (kHostMultiplyAdds), the bound of docs/how-it-works.md against an FP64 reference: within
// twice the error of plain cuDNN's undivided call (floored at fp64_reference.h's accuracy_floor).

#include <algorithm>

#include "conv_check.h"
#include "core/conv_key.h"
#include "fp64_reference.h"
#include "optimize/padded_input.h"
#include "runtime/backend_graph.h"
#include "runtime/executor.h"

namespace ucudnn_test {
namespace {

constexpr double kHostMultiplyAdds = 2e7;  // an FP64 reference of well under a second

class PaddedInput : public PlanExecutionTest {};

// A random first layer: 1 to 3 input channels, one group.
ConvSpec first_layer_spec(std::mt19937& rng) {
  ConvSpec spec = random_spec(rng);
  spec.groups = 1;
  spec.c = std::uniform_int_distribution<int>(1, 3)(rng);
  spec.k = 8 * std::uniform_int_distribution<int>(1, 6)(rng);
  random_precision(rng, &spec);
  return spec;
}

// A random split whose every micro-batch runs `algo` (-1: `engine`) on the padded input.
ucudnn::optimize::MicroBatchSplit padded_split(int n, int algo, cudnnMathType_t math, const std::string& engine,
                                               std::mt19937& rng) {
  return random_split(
      n, run_of(n, algo, math, engine).candidate().with_padded_channels(ucudnn::optimize::kPaddedInputChannels), rng);
}

TEST_F(PaddedInput, PlansOnThePaddedInputMatchPlainCudnnOnTheCallersKernel) {
  SeededRng rng;
  int checked = 0, engines_checked = 0, filters_checked = 0, split_checked = 0, refused = 0, fp64_checked = 0;
  double worst_ratio = 0;
  UcudnnSplitStatistics kinds_before{sizeof(UcudnnSplitStatistics), {}, {}};
  CUDNN_OK(ucudnnGetSplitStatistics(&kinds_before));
  for (int i = 0; i < 50; ++i) {
    const ConvSpec spec = first_layer_spec(rng);
    ConvProblem p(spec);
    if (!p.ok) continue;
    ConvSpec four = spec;
    four.c = ucudnn::optimize::kPaddedInputChannels;
    ConvProblem padded_problem(four);
    if (!padded_problem.ok) continue;
    for (const UcudnnConvolutionOp_t op : {UCUDNN_OP_FORWARD, UCUDNN_OP_BACKWARD_FILTER}) {
      ucudnn::ConvKey key;
      ASSERT_TRUE(conv_key_of(p, op, &key));
      ASSERT_TRUE(ucudnn::optimize::input_padding_allowed(key)) << spec.describe();
      const int reference_algo = plain_heuristic_algo(plain_, p, op, kAmpleWorkspace);
      const int algo = plain_heuristic_algo(plain_, padded_problem, op, kAmpleWorkspace);
      if (reference_algo < 0 || algo < 0) continue;
      std::vector<ucudnn::optimize::MicroBatchSplit> splits = {padded_split(spec.n, algo, spec.math, "", rng)};
      std::vector<ucudnn::runtime::EngineOffer> offers;
      const ucudnn::ConvKey padded = ucudnn::optimize::padded_input_key(key);
      if (ucudnn::runtime::offer_engines(padded.with_batch(1), ucudnn::KnobSearch::kHeuristics, &offers).ok() &&
          !offers.empty()) {
        splits.push_back(padded_split(spec.n, -1, spec.math, offers.front().id, rng));
      }
      const auto& scale = kScales[std::uniform_int_distribution<int>(0, 2)(rng)];
      OpTensors t(p, op);
      ASSERT_TRUE(t.allocated());
      t.fill_random(rng);
      ASSERT_EQ(t.run_reference(plain_, reference_algo, scale[0], scale[1], workspace_->get(), kAmpleWorkspace),
                CUDNN_STATUS_SUCCESS);
      DeviceArray start(t.output().elements(), spec.data_type);  // what beta reads, for each plan
      ASSERT_TRUE(start.get());
      start.copy_from(t.output());
      std::vector<double> want;
      if (multiply_adds(p) <= kHostMultiplyAdds) {
        want =
            fp64_reference(p, op, t.x.download(), t.y.download(), t.w.download(), start.download(), scale[0], scale[1]);
      }
      for (const auto& split : splits) {
        const bool engine = !split.runs.front().candidate().engine_id.empty();
        SCOPED_TRACE(spec.describe() + " op " + std::to_string(op) + ", " + std::to_string(split.runs.size()) +
                     " micro-batches, " +
                     (engine ? split.runs.front().candidate().engine_id : "algo " + std::to_string(algo)) + ", beta " +
                     std::to_string(scale[1]));
        const SplitRun run =
            run_split_checked(plain_, key, split, t, start, scale, tolerance(spec, false), want, workspace_->get());
        if (!run.ran) {  // cuDNN refuses the micro-batch with this algorithm
          ++refused;
          continue;
        }
        ++checked;
        if (engine) ++engines_checked;
        if (op == UCUDNN_OP_BACKWARD_FILTER) ++filters_checked;
        if (split.runs.size() > 1) ++split_checked;
        if (run.fp64_ratio >= 0) {
          worst_ratio = std::max(worst_ratio, run.fp64_ratio);
          ++fp64_checked;
        }
      }
    }
  }
  UcudnnSplitStatistics kinds{sizeof(UcudnnSplitStatistics), {}, {}};
  CUDNN_OK(ucudnnGetSplitStatistics(&kinds));
  long long padded_calls = 0;
  for (int op = 0; op < 3; ++op) padded_calls += kinds.paddedInputCalls[op] - kinds_before.paddedInputCalls[op];
  EXPECT_EQ(padded_calls, checked) << "the statistics count every call run on a padded input";
  std::printf(
      "[ padded ] seed %u: %d padded plans checked (%d of engines, %d backward filter, %d split), %d refused by "
      "cuDNN; %d against FP64, worst error %.2fx the undivided call's\n",
      rng.first_seed, checked, engines_checked, filters_checked, split_checked, refused, fp64_checked, worst_ratio);
  EXPECT_GE(checked, 50);
  EXPECT_GE(engines_checked, 10);
  EXPECT_GE(filters_checked, 20);
  EXPECT_GE(split_checked, 15);
  EXPECT_GE(fp64_checked, 15);
}

}  // namespace
}  // namespace ucudnn_test
