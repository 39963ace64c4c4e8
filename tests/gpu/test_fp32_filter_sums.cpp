// A half-precision backward filter split summed in FP32 (runtime/fp32_filter_sums.h) against an
// FP64 reference computed on the host: for FP16 and BF16, NCHW and NHWC, grouped, dilated, strided,
// 1-d and 3-d kernels, split into many micro-batches of a legacy algorithm and of an engine, the
// split's error must be within twice the error of the same algorithm run undivided by plain cuDNN
// (the bound of docs/how-it-works.md). Error: the largest absolute difference over the largest
// reference value; the undivided call's error is floored at half the type's unit roundoff, what
// its one rounding alone may give.

#include <cmath>
#include <vector>

#include "conv_check.h"
#include "fp64_reference.h"
#include "core/conv_key.h"
#include "runtime/backend_graph.h"
#include "runtime/executor.h"

namespace ucudnn_test {
namespace {

class Fp32FilterSums : public PlanExecutionTest {};

ConvSpec spec_of(int n, int c, int k, std::vector<int> spatial, std::vector<int> filter, int pad, int stride,
                 int dilation, int groups, cudnnDataType_t type, Layout layout) {
  ConvSpec s;
  s.n = n;
  s.c = c;
  s.k = k;
  s.groups = groups;
  s.spatial = spatial;
  s.filter = filter;
  s.pad.assign(spatial.size(), pad);
  s.stride.assign(spatial.size(), stride);
  s.dilation.assign(spatial.size(), dilation);
  s.data_type = type;
  s.math = CUDNN_DEFAULT_MATH;
  s.layout = layout;
  if (spatial.size() == 2 && spatial[0] == 1) s.pad[0] = 0;  // 1-d: no padding along the unit height
  return s;
}

// `n` samples in micro-batches of 1, 2 and 3 in turn (many partial sums), all of one candidate.
ucudnn::optimize::MicroBatchSplit many_micro_batches(int n, int algo, const std::string& engine) {
  ucudnn::optimize::MicroBatchSplit split;
  split.batch = n;
  int left = n, turn = 0;
  while (left > 0) {
    const int size = std::min(left, 1 + turn++ % 3);
    split.runs.push_back(run_of(size, algo, CUDNN_DEFAULT_MATH, engine));
    left -= size;
  }
  return split;
}

TEST_F(Fp32FilterSums, SplitHalfFilterGradientsAreWithinTwiceOneUndividedCallsError) {
  SeededRng rng;
  struct Shape {
    const char* name;
    int n, c, k;
    std::vector<int> spatial, filter;
    int pad, stride, dilation, groups;
  };
  const Shape shapes[] = {
      {"plain 3x3", 24, 16, 32, {12, 12}, {3, 3}, 1, 1, 1, 1},
      {"grouped", 24, 16, 32, {10, 10}, {3, 3}, 1, 1, 1, 4},
      {"dilated", 24, 8, 16, {14, 14}, {3, 3}, 2, 1, 2, 1},
      {"strided 7x7 C=3", 24, 3, 16, {20, 20}, {7, 7}, 3, 2, 1, 1},
      {"1-d", 24, 16, 16, {1, 40}, {1, 5}, 2, 1, 1, 1},
      {"3-d", 12, 8, 8, {6, 6, 6}, {3, 3, 3}, 1, 1, 1, 1},
  };
  int checked = 0, engines_checked = 0;
  UcudnnSplitStatistics kinds_before{sizeof(UcudnnSplitStatistics), {}, {}};
  CUDNN_OK(ucudnnGetSplitStatistics(&kinds_before));
  const long long fp32_sums_before = kinds_before.op[UCUDNN_OP_BACKWARD_FILTER].fp32SumCalls;
  double worst_ratio = 0;
  for (const Shape& shape : shapes) {
    for (cudnnDataType_t type : {CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16}) {
      for (Layout layout : {Layout::kNchw, Layout::kNhwc}) {
        const ConvSpec spec = spec_of(shape.n, shape.c, shape.k, shape.spatial, shape.filter, shape.pad,
                                      shape.stride, shape.dilation, shape.groups, type, layout);
        ConvProblem p(spec);
        if (!p.ok) continue;
        const auto op = UCUDNN_OP_BACKWARD_FILTER;
        const int algo = plain_heuristic_algo(plain_, p, op, kAmpleWorkspace);
        if (algo < 0) continue;
        ucudnn::ConvKey key;
        ASSERT_TRUE(conv_key_of(p, op, &key));
        const auto& scale = kScales[checked % 2];  // beta 0, then beta 0.25 (the old values count)
        SCOPED_TRACE(std::string(shape.name) + " " + spec.describe() + " algo " + std::to_string(algo) + " beta " +
                     std::to_string(scale[1]));
        OpTensors t(p, op);
        ASSERT_TRUE(t.allocated());
        t.fill_random(rng);
        const std::vector<float> x = t.x.download(), dy = t.y.download(), dw_old = t.w.download();
        DeviceArray old_w(t.w.elements(), type);
        ASSERT_TRUE(old_w.get());
        old_w.copy_from(t.w);
        const std::vector<double> want =
            fp64_reference(p, UCUDNN_OP_BACKWARD_FILTER, x, dy, dw_old, dw_old, scale[0], scale[1]);

        ASSERT_EQ(t.run_reference(plain_, algo, scale[0], scale[1], workspace_->get(), kAmpleWorkspace),
                  CUDNN_STATUS_SUCCESS);
        CUDA_OK(cudaDeviceSynchronize());
        const double undivided = std::max(error_against(t.reference.download(), want), accuracy_floor(spec));

        // The legacy algorithm, then the first engine offered at micro-batch 1.
        std::vector<ucudnn::optimize::MicroBatchSplit> splits = {many_micro_batches(spec.n, algo, "")};
        std::vector<ucudnn::runtime::EngineOffer> offers;
        if (ucudnn::runtime::offer_engines(key.with_batch(1), ucudnn::KnobSearch::kHeuristics, &offers).ok() &&
            !offers.empty()) {
          splits.push_back(many_micro_batches(spec.n, -1, offers.front().id));
        }
        for (const auto& split : splits) {
          std::unique_ptr<ucudnn::runtime::ExecutablePlan> plan;
          if (!build_plan(key, kAmpleWorkspace, split, &plan)) continue;
          ASSERT_TRUE(plan->split().sums_in_fp32);
          t.w.copy_from(old_w);  // the values beta reads, as the reference read them
          const ucudnn::Status ran = plan->execute(plain_, &scale[0], &scale[1], {t.x.get(), t.w.get(), t.y.get()},
                                                   workspace_->get(), kAmpleWorkspace);
          if (!ran.ok()) continue;  // an algorithm that does not run at some micro-batch size
          CUDA_OK(cudaDeviceSynchronize());
          const double split_error = error_against(t.w.download(), want);
          EXPECT_LE(split_error, 2 * undivided)
              << (split.runs.front().candidate().engine_id.empty() ? "legacy" : "engine");
          worst_ratio = std::max(worst_ratio, split_error / undivided);
          ++checked;
          if (!split.runs.front().candidate().engine_id.empty()) ++engines_checked;
        }
      }
    }
  }
  UcudnnSplitStatistics kinds{sizeof(UcudnnSplitStatistics), {}, {}};
  CUDNN_OK(ucudnnGetSplitStatistics(&kinds));
  EXPECT_EQ(kinds.op[UCUDNN_OP_BACKWARD_FILTER].fp32SumCalls - fp32_sums_before, checked)
      << "the statistics count every call summed in FP32";
  std::printf("[ fp32 sums ] seed %u: %d splits checked (%d of engines), worst error %.2fx the undivided call's\n",
              rng.first_seed, checked, engines_checked, worst_ratio);
  EXPECT_GE(checked, 30);
  EXPECT_GE(engines_checked, 8);
}

}  // namespace
}  // namespace ucudnn_test
