// The fast search (core/search_mode.h, optimize/size_search.h) against the exhaustive one, on the
// recorded H100 AlexNet table: the same plans within the search's margin, from fewer sizes.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <set>

#include "core/env_config.h"
#include "core/search_mode.h"
#include "core/statistics.h"
#include "optimize/size_search.h"
#include "recorded_source.h"
#include "runtime/plan_builder.h"
#include "ucudnn/ucudnn.h"

namespace ucudnn {
using optimize::search_ladder;
using optimize::smaller_sizes_may_help;
using runtime::ExecutablePlan;
using runtime::PlanBuilder;
using runtime::plannable_sizes;
namespace {

using testing::alexnet_keys;
using testing::RecordedSource;

constexpr std::size_t kMiB = std::size_t{1} << 20;

Measurement row(int size, int algo, double ms, std::size_t workspace) {
  return Measurement{Candidate::legacy(algo, 0), size, ms, 0.0, workspace, true};
}

TEST(SearchLadder, PowerOfTwoSizesLargestFirstAndAllHalvesDownToOne) {
  EXPECT_EQ(search_ladder({1, 2, 4, 8, 16, 32, 64}, BatchSizePolicy::kPowerOfTwo),
            (std::vector<int>{64, 32, 16, 8, 4, 2, 1}));
  std::vector<int> all;
  for (int b = 1; b <= 100; ++b) all.push_back(b);
  EXPECT_EQ(search_ladder(all, BatchSizePolicy::kAll), (std::vector<int>{100, 50, 25, 13, 7, 4, 2, 1}));
  // Sizes the alignment left out are skipped: the next allowed size at or below the half.
  EXPECT_EQ(search_ladder({2, 4, 6, 8, 10, 12}, BatchSizePolicy::kAll), (std::vector<int>{12, 6, 2}));
  EXPECT_EQ(search_ladder({64}, BatchSizePolicy::kUndivided), (std::vector<int>{64}));
}

TEST(SmallerSizes, StopOnceTheBestPossibleCannotBeatThePlan) {
  // The whole batch's fastest fits: no smaller size can do better per sample.
  const std::vector<Measurement> fits = {row(64, 0, 1.0, 0), row(64, 1, 2.0, 0)};
  EXPECT_FALSE(smaller_sizes_may_help(64, {64}, fits, 8 * kMiB, CallPricing::kIssued, 0.02));
  // The fastest needs more than the limit: a smaller micro-batch may fit it.
  const std::vector<Measurement> too_big = {row(64, 0, 1.0, 64 * kMiB), row(64, 1, 2.0, 0)};
  EXPECT_TRUE(smaller_sizes_may_help(64, {64}, too_big, 8 * kMiB, CallPricing::kIssued, 0.02));
  // ... until a size where it fits: two halves at 0.5 ms each match the bound.
  std::vector<Measurement> halves = too_big;
  halves.push_back(row(32, 0, 0.5, 8 * kMiB));
  EXPECT_FALSE(smaller_sizes_may_help(64, {64, 32}, halves, 8 * kMiB, CallPricing::kIssued, 0.02));
  // Within the margin is as good as equal; beyond it is not.
  std::vector<Measurement> near = too_big;
  near.push_back(row(32, 0, 0.5, 16 * kMiB));
  near.push_back(row(32, 1, 0.505, 0));
  EXPECT_FALSE(smaller_sizes_may_help(64, {64, 32}, near, 8 * kMiB, CallPricing::kIssued, 0.02));
  EXPECT_TRUE(smaller_sizes_may_help(64, {64, 32}, near, 8 * kMiB, CallPricing::kIssued, 0.0));
  // No rows at the smallest size measured, or no plan yet: keep going.
  EXPECT_TRUE(smaller_sizes_may_help(64, {64, 32}, too_big, 0, CallPricing::kIssued, 0.02));
  EXPECT_TRUE(smaller_sizes_may_help(64, {}, fits, 8 * kMiB, CallPricing::kIssued, 0.02));
}

// Every AlexNet kernel at three limits and two policies: the fast search's plan is predicted
// within the search's margin of the exhaustive one's (the recording holds every candidate, so
// only the order over sizes differs here), and it asks for fewer sizes in all.
TEST(FastSearch, PlansWithinTheMarginOfTheExhaustiveSearchFromFewerSizes) {
  auto fast_source = RecordedSource::alexnet();
  auto exhaustive_source = RecordedSource::alexnet();
  PlanBuilder fast{fast_source, nullptr};
  PlanBuilder exhaustive{exhaustive_source, nullptr};
  fast.set_search_mode(SearchMode::kFast);
  exhaustive.set_search_mode(SearchMode::kExhaustive);
  int stopped_early = 0;
  for (BatchSizePolicy policy : {BatchSizePolicy::kPowerOfTwo, BatchSizePolicy::kAll}) {
    for (std::size_t limit : {8 * kMiB, 64 * kMiB, 512 * kMiB}) {
      for (const ConvKey& key : alexnet_keys()) {
        std::shared_ptr<const ExecutablePlan> quick, full;
        ASSERT_TRUE(fast.plan(nullptr, key, limit, policy, CandidateSet::kLegacy, &quick).ok());
        ASSERT_TRUE(exhaustive.plan(nullptr, key, limit, policy, CandidateSet::kLegacy, &full).ok());
        EXPECT_LE(quick->split().time_ms, full->split().time_ms * (1 + optimize::kSearchMargin) + 1e-9)
            << key.to_string() << " under " << limit << " B, " << to_string(policy);
        EXPECT_LE(quick->split().workspace_bytes, limit);
        const int sizes = static_cast<int>(plannable_sizes(key, policy).size());
        if (fast_source->calls_for(key) < sizes) ++stopped_early;
      }
    }
  }
  EXPECT_LT(fast_source->sizes_asked().size(), exhaustive_source->sizes_asked().size() / 2)
      << "the fast search measures fewer sizes";
  EXPECT_GT(stopped_early, 0);
}

TEST(FastSearch, AsksForTheWholeBatchFirstAndStopsWhereItsFastestFits) {
  auto source = std::make_shared<RecordedSource>();
  const ConvKey key = alexnet_keys()[3];
  source->add(key, {row(256, 0, 1.0, 0), row(128, 0, 0.6, 0), row(64, 0, 0.4, 0)});
  PlanBuilder builder{source, nullptr};
  builder.set_search_mode(SearchMode::kFast);
  std::shared_ptr<const ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, key, 8 * kMiB, BatchSizePolicy::kPowerOfTwo, CandidateSet::kLegacy, &plan).ok());
  EXPECT_EQ(source->sizes_asked(), (std::vector<int>{256}));
  EXPECT_EQ(plan->split().micro_batch_count(), 1);
}

TEST(FastSearch, EachModeHasItsOwnCachedPlan) {
  auto source = RecordedSource::alexnet();
  PlanBuilder builder{source, nullptr};
  const ConvKey key = alexnet_keys()[3];
  std::shared_ptr<const ExecutablePlan> plan, cached;
  builder.set_search_mode(SearchMode::kFast);
  ASSERT_TRUE(builder.plan(nullptr, key, 64 * kMiB, BatchSizePolicy::kPowerOfTwo, CandidateSet::kLegacy, &plan).ok());
  EXPECT_TRUE(builder.cached_plan(key, 64 * kMiB, BatchSizePolicy::kPowerOfTwo, CandidateSet::kLegacy, &cached));
  builder.set_search_mode(SearchMode::kExhaustive);
  EXPECT_FALSE(builder.cached_plan(key, 64 * kMiB, BatchSizePolicy::kPowerOfTwo, CandidateSet::kLegacy, &cached));
}

TEST(SearchModeSetting, ParsesFastAndExhaustiveAndNamesTheVariableOtherwise) {
  EXPECT_EQ(parse_search_mode("FAST").value(), SearchMode::kFast);
  EXPECT_EQ(parse_search_mode("exhaustive").value(), SearchMode::kExhaustive);
  EXPECT_FALSE(parse_search_mode("quick"));
  SettingValues values;
  values["UCUDNN_SEARCH"] = "thorough";
  auto config = parse_settings(values);
  ASSERT_FALSE(config);
  EXPECT_NE(config.message().find("UCUDNN_SEARCH"), std::string::npos) << config.message();
  EXPECT_NE(config.message().find("thorough"), std::string::npos) << config.message();
  values.erase("UCUDNN_SEARCH");
  EXPECT_EQ(parse_settings(values).value().search, SearchMode::kFast) << "fast is the default";
}

TEST(SearchModeApi, SetGetAndRefuseUnknownValues) {
  UcudnnSearchMode_t before;
  ASSERT_EQ(ucudnnGetSearchMode(&before), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(ucudnnSetSearchMode(UCUDNN_SEARCH_EXHAUSTIVE), CUDNN_STATUS_SUCCESS);
  UcudnnSearchMode_t now;
  ASSERT_EQ(ucudnnGetSearchMode(&now), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(now, UCUDNN_SEARCH_EXHAUSTIVE);
  EXPECT_EQ(ucudnnSetSearchMode(static_cast<UcudnnSearchMode_t>(7)), CUDNN_STATUS_BAD_PARAM);
  EXPECT_NE(std::string(ucudnnGetLastErrorMessage()).find("search mode"), std::string::npos);
  EXPECT_EQ(ucudnnGetSearchMode(nullptr), CUDNN_STATUS_BAD_PARAM);
  ASSERT_EQ(ucudnnSetSearchMode(before), CUDNN_STATUS_SUCCESS);
}

TEST(SearchStatisticsApi, NeedsTheStructSizeAndCountsWhatTheSearchDid) {
  UcudnnSearchStatistics stats{};
  EXPECT_EQ(ucudnnGetSearchStatistics(&stats), CUDNN_STATUS_BAD_PARAM) << "structSize unset";
  EXPECT_NE(std::string(ucudnnGetLastErrorMessage()).find("structSize"), std::string::npos);
  EXPECT_EQ(ucudnnGetSearchStatistics(nullptr), CUDNN_STATUS_BAD_PARAM);
  stats.structSize = sizeof stats;
  ASSERT_EQ(ucudnnGetSearchStatistics(&stats), CUDNN_STATUS_SUCCESS);
  const long long before = stats.op[0].sizesSkipped;
  Statistics::instance().count_search(ConvOp::kForward, SearchCount::kSizesSkipped, 3);
  Statistics::instance().add_search_time(ConvOp::kForward, SearchPhase::kTiming, 0.5);
  UcudnnSearchStatistics after{};
  after.structSize = sizeof after;
  ASSERT_EQ(ucudnnGetSearchStatistics(&after), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(after.op[0].sizesSkipped, before + 3);
  EXPECT_GE(after.op[0].timingSeconds, stats.op[0].timingSeconds + 0.49);
}

}  // namespace
}  // namespace ucudnn
