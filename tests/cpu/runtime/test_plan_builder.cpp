// The plan builder driven by a recorded measurement source: no GPU, every row from tests/data.

#include <gtest/gtest.h>

#include <cstddef>
#include <memory>

#include "recorded_planning.h"

namespace ucudnn::testing {
namespace {

// AlexNet conv2 forward: with 64 MiB, splitting the batch beats the undivided kernel.
ConvKey conv2_forward() { return alexnet_keys()[3]; }

// These tests pin the exhaustive search (every size gathered in one request); the fast search
// has its own tests (test_fast_search.cpp).
class PlanBuilderTest : public ::testing::Test {
 protected:
  void SetUp() override { builder.set_search_mode(SearchMode::kExhaustive); }
  std::shared_ptr<RecordedSource> source = RecordedSource::alexnet();
  PlanBuilder builder{source, nullptr};
};

TEST_F(PlanBuilderTest, PlansFromRecordedRowsWithinTheLimit) {
  std::shared_ptr<const ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, conv2_forward(), 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  ASSERT_NE(plan, nullptr);
  EXPECT_LE(plan->split().workspace_bytes, 64 * kMiB);
  EXPECT_GT(plan->split().time_ms, 0.0);
  int covered = 0;
  for (const auto& run : plan->split().runs) covered += run.size() * run.count;
  EXPECT_EQ(covered, 256);
  EXPECT_EQ(source->calls_for(conv2_forward()), 1);
  EXPECT_GT(builder.timings_run(), 0);
  EXPECT_EQ(builder.timings_run(), source->timings_run());
}

TEST_F(PlanBuilderTest, SecondPlanIsACacheHitThatAsksTheSourceNothing) {
  std::shared_ptr<const ExecutablePlan> first, second, cached;
  EXPECT_FALSE(builder.cached_plan(conv2_forward(), 64 * kMiB, kPolicy, kCandidates, &cached));
  ASSERT_TRUE(builder.plan(nullptr, conv2_forward(), 64 * kMiB, kPolicy, kCandidates, &first).ok());
  const long long timings = builder.timings_run();
  ASSERT_TRUE(builder.plan(nullptr, conv2_forward(), 64 * kMiB, kPolicy, kCandidates, &second).ok());
  EXPECT_EQ(first, second) << "the same plan object";
  EXPECT_EQ(source->calls_for(conv2_forward()), 1);
  EXPECT_EQ(builder.timings_run(), timings);
  ASSERT_TRUE(builder.cached_plan(conv2_forward(), 64 * kMiB, kPolicy, kCandidates, &cached));
  EXPECT_EQ(cached, first);
  EXPECT_FALSE(builder.cached_plan(conv2_forward(), 32 * kMiB, kPolicy, kCandidates, &cached)) << "another limit";
  EXPECT_FALSE(builder.cached_plan(conv2_forward(), 64 * kMiB, BatchSizePolicy::kUndivided, kCandidates, &cached))
      << "another policy";
}

TEST_F(PlanBuilderTest, SmallerLimitReusesRowsAndLargerThanCoveredMeasuresAgain) {
  source->limit_to(256 * kMiB);  // as a GPU with little free memory measures
  const ConvKey key = conv2_forward();
  std::shared_ptr<const ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, key, 128 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(source->calls(), 1);
  EXPECT_TRUE(source->last_known().empty()) << "nothing known before the first measurement";

  ASSERT_TRUE(builder.plan(nullptr, key, 32 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_LE(plan->split().workspace_bytes, 32 * kMiB);
  ASSERT_TRUE(builder.plan(nullptr, key, 256 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(source->calls(), 1) << "limits up to the bound covered reuse the rows";

  source->limit_to(SIZE_MAX);
  ASSERT_TRUE(builder.plan(nullptr, key, 1024 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(source->calls(), 2) << "a limit above the bound covered measures again";
  EXPECT_FALSE(source->last_known().empty()) << "the rows already measured are passed on";
  EXPECT_LE(plan->split().workspace_bytes, 1024 * kMiB);

  ASSERT_TRUE(builder.plan(nullptr, key, 4096 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(source->calls(), 2) << "rows complete for any limit";
  // The table holds every recorded row of each size once.
  for (int size : {1, 16, 256}) {
    auto entry = builder.table().entry(key.with_batch(size), CandidateKind::kLegacy);
    ASSERT_TRUE(entry.has_value()) << size;
    EXPECT_EQ(entry->rows.size(), source->rows_at(key, size).size()) << size;
    EXPECT_EQ(entry->measured_up_to, SIZE_MAX);
  }
}

TEST_F(PlanBuilderTest, FailureIsAskedOnceAndRemembered) {
  const ConvKey key = conv2_forward();
  source->fail_for(key, Error(ErrorCode::kExecutionFailed, "recorded failure"));
  std::shared_ptr<const ExecutablePlan> plan;
  const Status first = builder.plan(nullptr, key, 64 * kMiB, kPolicy, kCandidates, &plan);
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.error().code, ErrorCode::kExecutionFailed);
  const Status second = builder.plan(nullptr, key, 64 * kMiB, kPolicy, kCandidates, &plan);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.message(), first.message());
  EXPECT_EQ(second.error().code, first.error().code);
  EXPECT_EQ(source->calls_for(key), 1);
  EXPECT_EQ(plan, nullptr);
  EXPECT_FALSE(builder.cached_plan(key, 64 * kMiB, kPolicy, kCandidates, &plan));
}

TEST_F(PlanBuilderTest, UnrecordedConvolutionFails) {
  ConvKey key = conv2_forward();
  key.conv.pads = {1, 1};
  std::shared_ptr<const ExecutablePlan> plan;
  EXPECT_FALSE(builder.plan(nullptr, key, 64 * kMiB, kPolicy, kCandidates, &plan).ok());
}

TEST_F(PlanBuilderTest, MeasuredRowsCoverEveryPlannableSize) {
  const ConvKey key = alexnet_keys()[0];
  std::vector<int> sizes;
  std::vector<Measurement> rows;
  ASSERT_TRUE(builder.measured_rows(nullptr, key, kPolicy, kCandidates, &sizes, &rows).ok());
  EXPECT_EQ(sizes, plannable_sizes(key, kPolicy));
  std::size_t expected = 0;
  for (int size : sizes) expected += source->rows_at(key, size).size();
  EXPECT_EQ(rows.size(), expected);
  EXPECT_EQ(builder.table_rows(key, sizes, kCandidates).size(), expected);
}

TEST(PlanBuilderTables, EachBuilderHasItsOwnTable) {
  auto source = RecordedSource::alexnet();
  PlanBuilder a(source, nullptr), b(source, nullptr);
  a.set_search_mode(SearchMode::kExhaustive);
  b.set_search_mode(SearchMode::kExhaustive);
  std::shared_ptr<const ExecutablePlan> plan;
  ASSERT_TRUE(a.plan(nullptr, conv2_forward(), 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  ASSERT_TRUE(b.plan(nullptr, conv2_forward(), 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(source->calls_for(conv2_forward()), 2);
  EXPECT_GT(a.table().size(), 0u);
  EXPECT_EQ(a.table().size(), b.table().size());
}

TEST(PlanBuilderDatabase, RowsInTheDatabaseAreUsedWithoutMeasuringAndMeasuredRowsAreStored) {
  TempDir dir;
  const std::string path = (dir.path() / "bench.db").string();
  auto recorded = RecordedSource::alexnet();
  const ConvKey stored_key = alexnet_keys()[6];     // conv3 forward
  const ConvKey measured_key = alexnet_keys()[7];   // conv3 backward data
  {
    auto db = BenchmarkDatabase::open(path);
    ASSERT_TRUE(db.ok()) << db.message();
    for (int size : plannable_sizes(stored_key, kPolicy)) {
      ASSERT_TRUE((*db)->store(RecordedSource::recorded_identity(), stored_key.with_batch(size), CandidateKind::kLegacy, SIZE_MAX,
                               recorded->rows_at(stored_key, size))
                      .ok());
    }
  }
  std::shared_ptr<BenchmarkDatabase> db = std::move(BenchmarkDatabase::open(path).value());
  auto source = RecordedSource::alexnet();
  PlanBuilder builder(source, db);
  builder.set_search_mode(SearchMode::kExhaustive);
  std::shared_ptr<const ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, stored_key, 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(source->calls_for(stored_key), 0) << "promoted from the database";
  EXPECT_EQ(builder.timings_run(), 0);
  EXPECT_EQ(builder.table().entry(stored_key.with_batch(256), CandidateKind::kLegacy)->rows.size(),
            recorded->rows_at(stored_key, 256).size());

  ASSERT_TRUE(builder.plan(nullptr, measured_key, 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(sorted(source->sizes_asked_for(measured_key)), plannable_sizes(measured_key, kPolicy))
      << "each size measured once (one claim, and one request, per size)";
  for (int size : plannable_sizes(measured_key, kPolicy)) {
    auto found = db->lookup(RecordedSource::recorded_identity(), measured_key.with_batch(size), CandidateKind::kLegacy);
    ASSERT_TRUE(found.ok()) << found.message();
    ASSERT_TRUE(found.value().has_value()) << "size " << size << " stored";
    EXPECT_EQ(found.value()->rows.size(), recorded->rows_at(measured_key, size).size());
    EXPECT_EQ(found.value()->measured_up_to, SIZE_MAX);
  }

  // Another plan builder on the same database measures neither.
  auto fresh = RecordedSource::alexnet();
  PlanBuilder other(fresh, db);
  ASSERT_TRUE(other.plan(nullptr, measured_key, 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  ASSERT_TRUE(other.plan(nullptr, stored_key, 32 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(fresh->calls_for(measured_key) + fresh->calls_for(stored_key), 0);
}

// With a database (so under the job's claims), sizes gathered together are measured as many at a
// time as the source measures side by side: one GPU, one size; UCUDNN_BENCHMARK_DEVICES=all on
// three GPUs, three.
TEST(PlanBuilderDatabase, SizesAreMeasuredAsManyAtATimeAsTheSourceMeasuresSideBySide) {
  for (std::size_t at_once : {std::size_t{1}, std::size_t{3}}) {
    TempDir dir;
    std::shared_ptr<BenchmarkDatabase> db = std::move(BenchmarkDatabase::open((dir.path() / "a.db").string()).value());
    auto source = RecordedSource::alexnet();
    source->set_sizes_at_once(at_once);
    PlanBuilder builder(source, db);
    builder.set_search_mode(SearchMode::kExhaustive);
    std::shared_ptr<const ExecutablePlan> plan;
    ASSERT_TRUE(builder.plan(nullptr, conv2_forward(), 64 * kMiB, kPolicy, kCandidates, &plan).ok());
    EXPECT_EQ(source->most_sizes_asked_at_once(), at_once);
    EXPECT_EQ(sorted(source->sizes_asked_for(conv2_forward())), plannable_sizes(conv2_forward(), kPolicy));
  }
}

TEST(PlanBuilderDatabase, BoundBelowTheLimitIsMeasuredAgain) {
  TempDir dir;
  std::shared_ptr<BenchmarkDatabase> db =
      std::move(BenchmarkDatabase::open((dir.path() / "bench.db").string()).value());
  const ConvKey key = conv2_forward();
  auto recorded = RecordedSource::alexnet();
  for (int size : plannable_sizes(key, kPolicy)) {
    std::vector<Measurement> small;
    for (const Measurement& m : recorded->rows_at(key, size)) {
      if (m.workspace_bytes <= 16 * kMiB) small.push_back(m);
    }
    ASSERT_TRUE(db->store(RecordedSource::recorded_identity(), key.with_batch(size), CandidateKind::kLegacy, 16 * kMiB, small).ok());
  }
  auto source = RecordedSource::alexnet();
  PlanBuilder builder(source, db);
  builder.set_search_mode(SearchMode::kExhaustive);
  std::shared_ptr<const ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, key, 8 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(source->calls_for(key), 0);
  ASSERT_TRUE(builder.plan(nullptr, key, 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(sorted(source->sizes_asked_for(key)), plannable_sizes(key, kPolicy)) << "each size measured again, once";
  EXPECT_EQ(db->lookup(RecordedSource::recorded_identity(), key.with_batch(256), CandidateKind::kLegacy).value()->measured_up_to, SIZE_MAX);
}

// A kernel whose split is fast on the GPU but slow to issue: the whole batch (algo 0) costs
// 0.1 ms, a micro-batch of 64 (algo 1) 0.02 ms on the GPU and 0.03 ms on the host.
std::shared_ptr<RecordedSource> host_bound_source(const ConvKey& key, std::size_t split_workspace,
                                                  bool split_deterministic = true) {
  auto source = std::make_shared<RecordedSource>();
  source->add(key, {Measurement{Candidate::legacy(0, 0), 256, 0.1, 0.03, 0, true},
                    Measurement{Candidate::legacy(1, 0), 64, 0.02, 0.03, split_workspace, split_deterministic}});
  return source;
}

TEST(PlanBuilderReplayPlan, HostBoundSplitRunsWholeWhenIssuedAndSplitWhenReplayed) {
  const ConvKey key = conv2_forward();
  PlanBuilder builder{host_bound_source(key, 2 * kMiB), nullptr};
  // Exhaustive: the table's size 64 is faster per sample than its whole batch, which the fast
  // search assumes no GPU shows (optimize/size_search.h).
  builder.set_search_mode(SearchMode::kExhaustive);
  std::shared_ptr<const ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, key, 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  ASSERT_EQ(plan->split().micro_batch_count(), 1) << "issued: 4 calls cost the host 0.12 ms, one 0.1 ms";
  EXPECT_EQ(plan->split().runs.at(0).candidate().algorithm, 0);
  EXPECT_EQ(plan->split().workspace_bytes, 0u);

  const ExecutablePlan& replayed = plan->replayed_plan();
  ASSERT_NE(&replayed, plan.get()) << "a distinct plan for replay";
  ASSERT_EQ(replayed.split().runs.size(), 1u);
  EXPECT_EQ(replayed.split().runs[0].size(), 64);
  EXPECT_EQ(replayed.split().runs[0].count, 4);
  EXPECT_DOUBLE_EQ(replayed.split().time_ms, 0.08);
  EXPECT_EQ(replayed.key(), plan->key());
  EXPECT_EQ(replayed.workspace_limit(), plan->workspace_limit());
  EXPECT_EQ(plan->workspace_wanted(), 2 * kMiB) << "the replay plan's workspace, asked of the framework";
}

TEST(PlanBuilderReplayPlan, ReplayPlanStaysWithinTheLimit) {
  const ConvKey key = conv2_forward();
  PlanBuilder builder{host_bound_source(key, 2 * kMiB), nullptr};
  std::shared_ptr<const ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, key, 1 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(&plan->replayed_plan(), plan.get()) << "the split needs 2 MiB: both plans run whole";
  EXPECT_EQ(plan->workspace_wanted(), 0u);
}

TEST(PlanBuilderReplayPlan, NoReplayPlanWhereTheHostSetsNoPace) {
  // The recorded table has no host times: both pricings plan the same calls, kept once.
  std::shared_ptr<RecordedSource> source = RecordedSource::alexnet();
  PlanBuilder builder{source, nullptr};
  std::shared_ptr<const ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, conv2_forward(), 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  ASSERT_GT(plan->split().micro_batch_count(), 1) << "the recorded conv2 splits";
  EXPECT_EQ(&plan->replayed_plan(), plan.get());
  EXPECT_EQ(plan->workspace_wanted(), plan->split().workspace_bytes);
}

TEST(PlanBuilderReplayPlan, DeterministicKernelGetsNoNondeterministicReplayPlan) {
  // The faster split runs a nondeterministic algorithm: a framework asking for determinism would
  // drop the kernel's plan, so no replay plan is made.
  const ConvKey key = conv2_forward();
  PlanBuilder builder{host_bound_source(key, 0, /*split_deterministic=*/false), nullptr};
  std::shared_ptr<const ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, key, 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(plan->split().micro_batch_count(), 1);
  EXPECT_TRUE(plan->deterministic());
  EXPECT_EQ(&plan->replayed_plan(), plan.get());
}

}  // namespace
}  // namespace ucudnn::testing
