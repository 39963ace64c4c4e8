// New batch sizes without a search (optimize::shared_size_ladder): a kernel already measured at
// some batch size plans a new one over the powers of two, measuring only those that are missing,
// on the recorded H100 AlexNet table (every micro-batch size 1..256 of every kernel).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

#include "core/statistics.h"
#include "optimize/size_search.h"
#include "recorded_planning.h"

namespace ucudnn::testing {
using optimize::MicroBatchRun;
using optimize::MicroBatchSplit;
namespace {

bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

std::shared_ptr<const ExecutablePlan> plan_for(PlanBuilder& builder, const ConvKey& key, std::size_t limit,
                                               BatchSizePolicy policy = kPolicy) {
  std::shared_ptr<const ExecutablePlan> plan;
  const Status planned = builder.plan(nullptr, key, limit, policy, kCandidates, &plan);
  EXPECT_TRUE(planned.ok()) << key.to_string() << ": " << planned.message();
  return plan;
}

int planned_samples(const MicroBatchSplit& split) {
  int samples = 0;
  for (const MicroBatchRun& run : split.runs) samples += run.size() * run.count;
  return samples;
}

TEST(SharedSizeLadder, PowersOfTwoAtOrBelowTheBatchLargestFirst) {
  EXPECT_EQ(optimize::shared_size_ladder({1, 2, 4, 8, 16, 32, 33}, 33), (std::vector<int>{32, 16, 8, 4, 2, 1}));
  std::vector<int> all;
  for (int b = 1; b <= 64; ++b) all.push_back(b);
  EXPECT_EQ(optimize::shared_size_ladder(all, 64), (std::vector<int>{64, 32, 16, 8, 4, 2, 1}));
  // Sizes the alignment left out stay out.
  EXPECT_EQ(optimize::shared_size_ladder({2, 4, 6, 8, 10}, 10), (std::vector<int>{8, 4, 2}));
}

// An inference server's batch sizes 1..256 in turn: each kernel measures the nine powers of two,
// each once, and every other batch size is planned with nothing measured, within the limit and
// covering the batch exactly.
TEST(NewBatchSizes, BatchSizesOneToTwoFiftySixMeasureOnlyThePowersOfTwo) {
  auto source = RecordedSource::alexnet();
  PlanBuilder builder{source, nullptr};
  builder.set_search_mode(SearchMode::kFast);
  const long long new_before = Statistics::instance().read_search(ConvOp::kForward).count(SearchCount::kNewBatchSizes);
  for (const ConvKey& kernel : alexnet_keys()) {
    // Inference: forward only. conv1's samples are 16-byte aligned only in fours, so its batch
    // sizes below 4 are whole batches of their own, which the recording does not hold.
    if (kernel.op != ConvOp::kForward || kernel.x.dims[1] == 3) continue;
    for (int batch = 1; batch <= 256; ++batch) {
      const std::size_t before = source->sizes_asked_for(kernel).size();
      auto plan = plan_for(builder, kernel.with_batch(batch), 8 * kMiB);
      ASSERT_TRUE(plan);
      EXPECT_EQ(planned_samples(plan->split()), batch);
      EXPECT_LE(plan->split().workspace_bytes, 8 * kMiB);
      if (!power_of_two(batch)) {
        EXPECT_EQ(source->sizes_asked_for(kernel).size(), before) << kernel.to_string() << " at batch " << batch;
      }
    }
    EXPECT_EQ(source->sizes_asked_for(kernel), (std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 256})) << kernel.to_string();
  }
  // Batch 1 of each of the four kernels was new to it; every later size was planned over powers of two.
  EXPECT_EQ(Statistics::instance().read_search(ConvOp::kForward).count(SearchCount::kNewBatchSizes) - new_before,
            4 * 255);
}

// A batch size new to a kernel that another process measured: planned from the database's rows of
// its powers of two (100 = 64 + 32 + 4), with nothing measured, even under the `all` policy.
TEST(NewBatchSizes, AnotherProcessesPowersOfTwoPlanANewBatchSizeWithNothingMeasured) {
  TempDir dir;
  const std::string path = (dir.path() / "bench.db").string();
  const ConvKey kernel = alexnet_keys()[3];  // conv2 forward
  {
    std::shared_ptr<BenchmarkDatabase> db = std::move(BenchmarkDatabase::open(path).value());
    PlanBuilder first{RecordedSource::alexnet(), db};
    first.set_search_mode(SearchMode::kExhaustive);
    plan_for(first, kernel, 8 * kMiB);  // batch 256: its powers of two and 256
  }
  std::shared_ptr<BenchmarkDatabase> db = std::move(BenchmarkDatabase::open(path).value());
  auto source = RecordedSource::alexnet();
  PlanBuilder second{source, db};
  second.set_search_mode(SearchMode::kFast);
  for (BatchSizePolicy policy : {BatchSizePolicy::kPowerOfTwo, BatchSizePolicy::kAll}) {
    auto plan = plan_for(second, kernel.with_batch(100), 8 * kMiB, policy);
    ASSERT_TRUE(plan);
    EXPECT_EQ(planned_samples(plan->split()), 100);
    for (const MicroBatchRun& run : plan->split().runs) EXPECT_TRUE(power_of_two(run.size())) << run.size();
  }
  EXPECT_EQ(source->calls(), 0) << "every size came from the database";
}

// A kernel seen for the first time, or at no power of two below the batch, is searched from its
// whole batch, as before; the undivided policy never plans over other sizes.
TEST(NewBatchSizes, WithoutSharedSizesAndUnderTheUndividedPolicyTheWholeBatchComesFirst) {
  auto source = std::make_shared<RecordedSource>();
  const ConvKey kernel = alexnet_keys()[6];  // conv3 forward
  auto row = [](int size, double ms) { return Measurement{Candidate::legacy(0, 0), size, ms, 0.0, 0, true}; };
  source->add(kernel, {row(100, 1.0), row(96, 0.96), row(80, 0.8), row(64, 0.66), row(32, 0.34), row(16, 0.18),
                       row(8, 0.1), row(4, 0.06), row(2, 0.04), row(1, 0.03)});
  PlanBuilder builder{source, nullptr};
  builder.set_search_mode(SearchMode::kFast);
  plan_for(builder, kernel.with_batch(100), 8 * kMiB);
  EXPECT_EQ(source->sizes_asked(), (std::vector<int>{100})) << "the whole batch fits: nothing smaller measured";
  plan_for(builder, kernel.with_batch(80), 8 * kMiB);
  EXPECT_EQ(source->sizes_asked().back(), 80) << "no power of two below 80 is known";
  plan_for(builder, kernel.with_batch(64), 8 * kMiB);
  plan_for(builder, kernel.with_batch(96), 8 * kMiB, BatchSizePolicy::kUndivided);
  EXPECT_EQ(source->sizes_asked(), (std::vector<int>{100, 80, 64, 96}));
}

// AlexNet's conv1 aligns its FP32 samples only in fours: a batch its shared sizes cannot make
// (63) is searched from the whole batch; one they can make (60) is planned over them.
TEST(NewBatchSizes, ABatchTheSharedSizesCannotMakeIsSearchedWhole) {
  auto source = std::make_shared<RecordedSource>();
  const ConvKey kernel = alexnet_keys()[0];  // conv1 forward
  ASSERT_EQ(plannable_sizes(kernel.with_batch(63), kPolicy), (std::vector<int>{4, 8, 16, 32, 63}));
  auto row = [](int size, double ms) { return Measurement{Candidate::legacy(0, 0), size, ms, 0.0, 0, true}; };
  source->add(kernel, {row(63, 0.63), row(60, 0.6), row(32, 0.33), row(16, 0.17), row(8, 0.09), row(4, 0.05)});
  PlanBuilder builder{source, nullptr};
  builder.set_search_mode(SearchMode::kFast);
  plan_for(builder, kernel.with_batch(32), 8 * kMiB);
  auto plan = plan_for(builder, kernel.with_batch(63), 8 * kMiB);
  ASSERT_TRUE(plan);
  EXPECT_EQ(planned_samples(plan->split()), 63);
  EXPECT_EQ(source->sizes_asked_for(kernel), (std::vector<int>{32, 63}));
  plan = plan_for(builder, kernel.with_batch(60), 8 * kMiB);
  ASSERT_TRUE(plan);
  EXPECT_EQ(planned_samples(plan->split()), 60);
  EXPECT_EQ(source->sizes_asked_for(kernel), (std::vector<int>{32, 63, 16, 8, 4})) << "60 = 32 + 16 + 8 + 4";
}

}  // namespace
}  // namespace ucudnn::testing
