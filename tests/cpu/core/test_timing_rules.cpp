// When the benchmark rig stops timing a candidate, and how it samples (core/timing_rules.h): the
// fast search's cut-short decisions, apart from the CUDA calls that feed them.

#include <gtest/gtest.h>

#include <vector>

#include "core/timing_rules.h"

namespace ucudnn {
namespace {

TEST(TimingRules, TheWarmUpCutsOnlyWhatNoLoadingExplainsOnTheGpuAndAsIssued) {
  const TimingBound bound{1.0, 1.0};
  // Beyond twice the bound plus 20 ms: 22 ms here.
  EXPECT_TRUE(cut_at_warm_up(22.5, bound));
  EXPECT_FALSE(cut_at_warm_up(21.5, bound)) << "a first call's module loading is within the slack";
  // The issued cost's bound is larger (a host-bound contender): the warm-up must beat it too.
  EXPECT_FALSE(cut_at_warm_up(25.0, TimingBound{1.0, 5.0}));
  EXPECT_TRUE(cut_at_warm_up(30.5, TimingBound{1.0, 5.0}));
}

TEST(TimingRules, AFirstCallIsCutOnlyWhereItLosesOnTheGpuAndAsIssuedBeyondTheMargin) {
  const TimingBound bound{1.0, 1.0};
  EXPECT_TRUE(cut_after_first_call(1.2, 0.1, bound));
  EXPECT_FALSE(cut_after_first_call(1.05, 0.1, bound)) << "within 10 %: timed in full";
  // Faster on the GPU though slow to issue: a replayed plan could still take it.
  EXPECT_FALSE(cut_after_first_call(0.5, 5.0, bound));
  // Slower on the GPU, but the contender is slower still as issued: it could win as issued.
  EXPECT_FALSE(cut_after_first_call(1.2, 0.1, TimingBound{1.0, 2.0}));
  // Slower on the GPU and, its host time counted, slower as issued too.
  EXPECT_TRUE(cut_after_first_call(1.2, 3.0, TimingBound{1.0, 2.0}));
}

TEST(TimingRules, ASampleHoldsEnoughCallsToLastItsTimeWithinOneAndTheMost) {
  EXPECT_EQ(calls_per_sample(0.1, 0.5, 16), 5);
  EXPECT_EQ(calls_per_sample(1.0, 0.5, 16), 1) << "a call longer than a sample is a sample";
  EXPECT_EQ(calls_per_sample(0.001, 0.5, 16), 16);
  EXPECT_EQ(calls_per_sample(0.0, 0.5, 16), 16) << "a call timed at zero";
  EXPECT_EQ(calls_per_sample(1e-300, 1e300, 16), 16) << "no overflow converting to int";
}

TEST(TimingRules, SamplesAgreeWithinTheToleranceOfTheSmallest) {
  EXPECT_TRUE(samples_agree({1.0, 1.02, 1.01}, 0.03));
  EXPECT_FALSE(samples_agree({1.0, 1.05}, 0.03));
  EXPECT_FALSE(samples_agree({}, 0.03));
  EXPECT_FALSE(samples_agree({0.0, 0.0}, 0.03)) << "a zero time is no agreement";
}

TEST(TimingRules, TheMedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median_of({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(median_of({4.0, 1.0, 3.0, 2.0}), 2.5);
  EXPECT_DOUBLE_EQ(median_of({}), 0.0);
}

}  // namespace
}  // namespace ucudnn
