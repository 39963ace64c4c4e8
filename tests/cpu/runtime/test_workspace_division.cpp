// Workspace division without a GPU: the division of a budget among recorded kernels, the segment
// layout, and re-division when a kernel comes late.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <random>
#include <vector>

#include "core/units.h"
#include "recorded_planning.h"
#include "runtime/workspace_division.h"

namespace ucudnn {
using runtime::align_up;
using runtime::kSegmentAlignment;
using runtime::lay_out_segments;
using runtime::SegmentLayout;
using runtime::WdKey;
using runtime::WdSummary;
using runtime::WorkspaceDivision;
namespace {

using testing::alexnet_keys;
using testing::ExecutablePlan;
using testing::kCandidates;
using testing::kMiB;
using testing::kPolicy;
using testing::PlanBuilder;
using testing::RecordedSource;

void expect_layout_is_sound(const std::vector<std::size_t>& bytes, const SegmentLayout& layout) {
  ASSERT_EQ(layout.offsets.size(), bytes.size());
  EXPECT_EQ(layout.total % kSegmentAlignment, 0u);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    EXPECT_EQ(layout.offsets[i] % kSegmentAlignment, 0u) << i;
    const std::size_t end = layout.offsets[i] + bytes[i];
    EXPECT_LE(end, layout.total) << i;
    if (i + 1 < bytes.size()) {
      EXPECT_LE(end, layout.offsets[i + 1]) << "segment " << i << " overlaps the next";
    }
  }
}

TEST(SegmentLayout, AlignsEverySegmentWithoutOverlap) {
  const std::vector<std::size_t> bytes = {0, 1, 256, 257, 1000};
  const SegmentLayout layout = lay_out_segments(bytes);
  EXPECT_EQ(layout.offsets, (std::vector<std::size_t>{0, 0, 256, 512, 1024}));
  EXPECT_EQ(layout.total, 2048u);
  expect_layout_is_sound(bytes, layout);
}

TEST(SegmentLayout, EmptyAndRandomSizes) {
  EXPECT_EQ(lay_out_segments({}).total, 0u);
  EXPECT_TRUE(lay_out_segments({}).offsets.empty());
  std::mt19937 random(7);
  std::uniform_int_distribution<std::size_t> size(0, 5000);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<std::size_t> bytes(static_cast<std::size_t>(trial % 9));
    for (auto& b : bytes) b = size(random);
    const SegmentLayout layout = lay_out_segments(bytes);
    expect_layout_is_sound(bytes, layout);
    std::size_t aligned = 0;
    for (std::size_t b : bytes) aligned += align_up(b);
    EXPECT_EQ(layout.total, aligned) << "no space between segments";
  }
  EXPECT_EQ(lay_out_segments({3, 3}, 8).offsets, (std::vector<std::size_t>{0, 8}));
}

TEST(WdKey, OrdersByLayerThenEveryFieldOfTheConvolution) {
  const std::vector<ConvKey> keys = alexnet_keys();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const WdKey a{keys[i], -1};
    EXPECT_FALSE(a < a);
    EXPECT_TRUE((WdKey{keys[i], -1} < WdKey{keys[i], 0}));
    for (std::size_t j = 0; j < keys.size(); ++j) {
      if (i == j) continue;
      const WdKey b{keys[j], -1};
      EXPECT_NE(a < b, b < a) << i << " " << j << ": distinct keys are ordered one way";
    }
  }
  ConvKey other_device = keys[0];
  other_device.device = 1;
  EXPECT_NE(keys[0] < other_device, other_device < keys[0]);
}

class DivisionTest : public ::testing::Test {
 protected:
  void register_all(const std::vector<ConvKey>& keys) {
    for (const ConvKey& key : keys) {
      double predicted = 0;
      bool deterministic = false;
      ASSERT_TRUE(division.register_kernel(nullptr, WdKey{key, -1}, kPolicy, kCandidates, &predicted, &deterministic).ok())
          << key.to_string();
      EXPECT_GT(predicted, 0.0);
    }
  }

  std::shared_ptr<RecordedSource> source = RecordedSource::alexnet();
  PlanBuilder builder{source, nullptr};
  WorkspaceDivision division{builder, kDefaultWdTimeLimitSeconds};
};

TEST_F(DivisionTest, DividesTheBudgetAmongTheKernels) {
  const std::vector<ConvKey> keys = alexnet_keys();
  const std::size_t budget = keys.size() * 64 * kMiB;
  division.set_budget(budget);
  register_all(keys);
  const int calls = source->calls();
  EXPECT_EQ(calls, static_cast<int>(keys.size()));
  EXPECT_FALSE(division.divided(0));
  ASSERT_TRUE(division.divide(nullptr, 0).ok());
  EXPECT_TRUE(division.divided(0));
  EXPECT_EQ(source->calls(), calls) << "division uses the rows registration measured";

  const WdSummary summary = division.summary(0);
  EXPECT_EQ(summary.kernels, static_cast<int>(keys.size()));
  EXPECT_EQ(summary.optimizations, 1);
  EXPECT_LE(summary.buffer_bytes, budget);
  EXPECT_GT(summary.variables, 0);

  std::vector<std::size_t> offsets, bytes;
  std::vector<std::pair<std::size_t, std::size_t>> segments;
  for (const ConvKey& key : keys) {
    auto plan = division.plan_of(WdKey{key, -1});
    auto segment = division.segment_of(WdKey{key, -1});
    ASSERT_NE(plan, nullptr);
    ASSERT_TRUE(segment.has_value());
    EXPECT_EQ(segment->bytes, plan->split().workspace_bytes);
    EXPECT_LE(plan->split().workspace_bytes, plan->workspace_limit());
    segments.emplace_back(segment->offset, segment->bytes);
  }
  std::sort(segments.begin(), segments.end());
  for (std::size_t i = 0; i < segments.size(); ++i) {
    EXPECT_EQ(segments[i].first % kSegmentAlignment, 0u);
    EXPECT_LE(segments[i].first + segments[i].second, summary.buffer_bytes);
    if (i + 1 < segments.size()) {
      EXPECT_LE(segments[i].first + segments[i].second, segments[i + 1].first);
    }
  }

  // 64 MiB for each kernel is one division of the budget: the optimum is at least as fast.
  double per_kernel_ms = 0;
  for (const ConvKey& key : keys) {
    std::shared_ptr<const ExecutablePlan> plan;
    ASSERT_TRUE(builder.plan(nullptr, key, 64 * kMiB, kPolicy, kCandidates, &plan).ok());
    per_kernel_ms += plan->split().time_ms;
  }
  EXPECT_LE(summary.predicted_ms, per_kernel_ms * (1 + 1e-9));
}

TEST_F(DivisionTest, SmallBudgetStillFitsTheBuffer) {
  const std::vector<ConvKey> keys = alexnet_keys();
  division.set_budget(8 * kMiB);
  register_all(keys);
  ASSERT_TRUE(division.divide(nullptr, 0).ok());
  EXPECT_LE(division.summary(0).buffer_bytes, 8 * kMiB);
}

TEST_F(DivisionTest, KernelRegisteredAfterTheDivisionDividesAgain) {
  const std::vector<ConvKey> keys = alexnet_keys();
  division.set_budget(256 * kMiB);
  register_all({keys[0], keys[1]});
  ASSERT_TRUE(division.divide(nullptr, 0).ok());
  ASSERT_TRUE(division.divided(0));
  EXPECT_EQ(division.plan_of(WdKey{keys[2], -1}), nullptr);

  register_all({keys[0]});  // known to the division: changes nothing
  EXPECT_TRUE(division.divided(0));

  register_all({keys[2]});
  EXPECT_FALSE(division.divided(0)) << "a late kernel undoes the division";
  EXPECT_EQ(division.plan_of(WdKey{keys[0], -1}), nullptr);
  ASSERT_TRUE(division.divide(nullptr, 0).ok());
  EXPECT_EQ(division.summary(0).optimizations, 2);
  EXPECT_EQ(division.summary(0).kernels, 3);
  for (int i = 0; i < 3; ++i) EXPECT_NE(division.plan_of(WdKey{keys[i], -1}), nullptr) << i;

  // Another layer id is another kernel.
  double predicted = 0;
  bool deterministic = false;
  ASSERT_TRUE(division.register_kernel(nullptr, WdKey{keys[0], 4}, kPolicy, kCandidates, &predicted, &deterministic).ok());
  EXPECT_FALSE(division.divided(0));
}

// Caffe asks for algorithms on every reshape, so every iteration: once divided, a known kernel's
// answer must cost no front (each is a dynamic program over its rows) and stay the same.
TEST_F(DivisionTest, KnownKernelAnswersAgainWithoutBuildingItsFront) {
  const std::vector<ConvKey> keys = alexnet_keys();
  division.set_budget(120 * kMiB);
  std::vector<double> first(keys.size());
  std::vector<bool> first_deterministic(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    bool deterministic = false;
    ASSERT_TRUE(division.register_kernel(nullptr, WdKey{keys[i], -1}, kPolicy, kCandidates, &first[i], &deterministic).ok());
    first_deterministic[i] = deterministic;
  }
  EXPECT_EQ(division.fronts_built(), static_cast<long>(keys.size()));
  ASSERT_TRUE(division.divide(nullptr, 0).ok());
  for (int iteration = 0; iteration < 3; ++iteration) {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      double predicted = -1;
      bool deterministic = !first_deterministic[i];
      ASSERT_TRUE(division.register_kernel(nullptr, WdKey{keys[i], -1}, kPolicy, kCandidates, &predicted, &deterministic).ok());
      EXPECT_EQ(predicted, first[i]) << keys[i].to_string();
      EXPECT_EQ(deterministic, first_deterministic[i]) << keys[i].to_string();
    }
  }
  EXPECT_EQ(division.fronts_built(), static_cast<long>(keys.size())) << "a known kernel built its front again";
  EXPECT_TRUE(division.divided(0));
  EXPECT_EQ(division.summary(0).optimizations, 1);

  // Under another budget the fastest configuration within it may differ: answered anew.
  division.set_budget(8 * kMiB);
  double predicted = 0;
  bool deterministic = false;
  ASSERT_TRUE(division.register_kernel(nullptr, WdKey{keys[0], -1}, kPolicy, kCandidates, &predicted, &deterministic).ok());
  EXPECT_EQ(division.fronts_built(), static_cast<long>(keys.size()) + 1);
  EXPECT_GE(predicted, first[0]) << "less workspace is never faster";
}

TEST_F(DivisionTest, KernelThatCannotBeMeasuredFailsOnce) {
  const ConvKey key = alexnet_keys()[4];
  source->fail_for(key, Error(ErrorCode::kNotSupported, "recorded failure"));
  double predicted = 0;
  bool deterministic = false;
  const Status first = division.register_kernel(nullptr, WdKey{key, -1}, kPolicy, kCandidates, &predicted, &deterministic);
  const Status second = division.register_kernel(nullptr, WdKey{key, -1}, kPolicy, kCandidates, &predicted, &deterministic);
  ASSERT_FALSE(first.ok());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.message(), first.message());
  EXPECT_EQ(source->calls_for(key), 1);
  EXPECT_FALSE(division.divide(nullptr, 0).ok()) << "no kernels registered";
}

TEST(Division, UsesItsOwnEngine) {
  auto source = RecordedSource::alexnet();
  PlanBuilder builder(source, nullptr);
  WorkspaceDivision division(builder, kDefaultWdTimeLimitSeconds);
  division.set_budget(64 * kMiB);
  double predicted = 0;
  bool deterministic = false;
  ASSERT_TRUE(
      division.register_kernel(nullptr, WdKey{alexnet_keys()[0], -1}, kPolicy, kCandidates, &predicted, &deterministic).ok());
  EXPECT_EQ(source->calls(), 1);
  EXPECT_GT(builder.table().size(), 0u);
}

}  // namespace
}  // namespace ucudnn
