// Many random convolutions, every operation, through UcudnnHandle_t with the policies `all` and
// `powerOfTwo`, against plain cuDNN on the same random data.
//
// Tolerances: see tolerance() in conv_check.h (FP32 cases force CUDNN_FMA_MATH: 1e-4 against the
// plan's own algorithm run undivided).

#include <algorithm>

#include "conv_check.h"

namespace ucudnn_test {
namespace {

class RandomConvolutions : public UcudnnTest {};

TEST_F(RandomConvolutions, EveryOpMatchesPlainCudnnUnderAllAndPowerOfTwo) {
  SeededRng rng;
  // Legacy algorithms, so that the reference can run the plan's own (engines: test_engine_plans.cpp).
  CUDNN_OK(ucudnnSetCandidates(handle_, UCUDNN_CANDIDATES_LEGACY));

  static const UcudnnBatchSizePolicy_t kPolicies[] = {UCUDNN_BATCH_SIZE_POLICY_ALL,
                                                      UCUDNN_BATCH_SIZE_POLICY_POWER_OF_TWO};
  static const UcudnnConvolutionOp_t kOps[] = {UCUDNN_OP_FORWARD, UCUDNN_OP_BACKWARD_DATA,
                                               UCUDNN_OP_BACKWARD_FILTER};
  static const size_t kLimits[] = {size_t{64} << 10, size_t{1} << 20, size_t{64} << 20};

  const int cases = 24;
  int checked = 0, split = 0, skipped = 0, same_algorithm = 0;
  for (int i = 0; i < cases; ++i) {
    const ConvSpec spec = random_spec(rng);
    ConvProblem problem(spec);
    if (!problem.ok) {
      ++skipped;
      continue;
    }
    const size_t limit = kLimits[std::uniform_int_distribution<int>(0, 2)(rng)];
    CUDNN_OK(ucudnnSetDefaultWorkspaceLimit(handle_, limit));
    for (UcudnnBatchSizePolicy_t policy : kPolicies) {
      CUDNN_OK(ucudnnSetBatchSizePolicy(handle_, policy));
      for (UcudnnConvolutionOp_t op : kOps) {
        for (const auto& scale : kScales) {
          SCOPED_TRACE(spec.describe() + " op " + std::to_string(op) + " policy " + std::to_string(policy) +
                       " limit " + std::to_string(limit) + " alpha " + std::to_string(scale[0]) + " beta " +
                       std::to_string(scale[1]));
          OpCheck check;
          check_op(handle_, plain_, problem, op, scale[0], scale[1], rng, &check);
          if (::testing::Test::HasFatalFailure()) return;
          // ucudnn must plan wherever cuDNN offers an algorithm within the limit (where none fits,
          // it rightly leaves the call to plain cuDNN, which runs the framework's own choice).
          if (check.first_algo >= 0 && check.least_memory <= limit) {
            EXPECT_EQ(check.first_algo, micro_batched_algo(op)) << "ucudnn fell back: " << ucudnnGetLastErrorMessage();
          }
          if (!check.reference_ran) {
            ++skipped;
            continue;
          }
          ++checked;
          same_algorithm += check.same_algorithm;
          EXPECT_LE(check.error, tolerance(spec, check.same_algorithm));
          EXPECT_GE(check.returned, 1);
          EXPECT_LE(check.plan.workspaceBytes, limit);
          EXPECT_EQ(check.reported_workspace, check.plan.workspaceBytes);
          int covered = 0;
          for (const auto& run : check.plan.runs) covered += run.size * run.count;
          EXPECT_EQ(covered, spec.n);
          if (check.plan.microBatchCount() > 1) ++split;
        }
      }
    }
  }
  std::printf(
      "[ random ] seed %u: %d checks (%d against the plan's own algorithm), %d on split plans, %d skipped "
      "(plain cuDNN could not run them)\n",
      rng.first_seed, checked, same_algorithm, split, skipped);
  EXPECT_GE(same_algorithm, checked * 3 / 4) << "most checks must isolate the splitting";
  EXPECT_GE(checked, cases * 2 * 3 * 3 / 2) << "too many cases skipped to say much";
}

}  // namespace
}  // namespace ucudnn_test
