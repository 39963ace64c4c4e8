// The plan builder with a padded input (optimize/padded_input.h) on recorded rows: a first layer
// whose 4-channel kernel is faster runs every micro-batch on the padded copy, within the limit with
// the copies counted; where padding does not pay, or the search does not try it, the plan is the
// one without it.

#include <gtest/gtest.h>

#include <vector>

#include "core/cudnn_values.h"
#include "measurement_rows.h"
#include "optimize/padded_input.h"
#include "recorded_planning.h"

namespace ucudnn {
namespace {

using testing::kCandidates;
using testing::kMiB;
using testing::kPolicy;
using testing::legacy_row;
using testing::PlanBuilder;
using testing::RecordedSource;

// ResNet's first layer at batch 32, FP16 NHWC: 3 -> 64 channels, 7 x 7 stride 2, 224 -> 112.
ConvKey first_layer(ConvOp op) {
  ConvKey key;
  key.op = op;
  key.x.data_type = key.y.data_type = key.w.data_type = cudnn_values::kDataHalf;
  key.w.format = cudnn_values::kTensorNhwc;
  key.x.dims = {32, 3, 224, 224};
  key.x.strides = {3 * 224 * 224, 1, 224 * 3, 3};
  key.y.dims = {32, 64, 112, 112};
  key.y.strides = {64 * 112 * 112, 1, 112 * 64, 64};
  key.w.dims = {64, 3, 7, 7};
  key.conv.pads = {3, 3};
  key.conv.strides = {2, 2};
  key.conv.dilations = {1, 1};
  key.conv.compute_type = cudnn_values::kDataFloat;
  key.conv.mode = cudnn_values::kCrossCorrelation;
  return key;
}

// Rows at every power of two: algo 0 needs no workspace at `per_sample_ms` a sample; algo 1 is
// faster per sample but needs 40 MiB at any size (over every limit here).
std::vector<Measurement> rows_of(double per_sample_ms) {
  std::vector<Measurement> rows;
  for (int size = 32; size >= 1; size /= 2) {
    rows.push_back(legacy_row(size, 0, 0.01 + per_sample_ms * size, 0));
    rows.push_back(legacy_row(size, 1, 0.01 + 0.001 * size, 40 * kMiB));
  }
  return rows;
}

class PaddedInputPlans : public ::testing::Test {
 protected:
  std::shared_ptr<RecordedSource> source = std::make_shared<RecordedSource>();
  PlanBuilder builder{source, nullptr};
};

TEST_F(PaddedInputPlans, AFasterFourChannelKernelRunsEveryMicroBatchOnThePaddedCopy) {
  for (ConvOp op : {ConvOp::kForward, ConvOp::kBackwardFilter}) {
    const ConvKey key = first_layer(op);
    source->add(key, rows_of(0.06));
    source->add(optimize::padded_input_key(key), rows_of(0.004));
    std::shared_ptr<const runtime::ExecutablePlan> plan;
    const Status planned = builder.plan(nullptr, key, 8 * kMiB, kPolicy, kCandidates, &plan);
    ASSERT_TRUE(planned.ok()) << planned.message();
    ASSERT_FALSE(plan->split().runs.empty());
    for (const auto& run : plan->split().runs) {
      EXPECT_EQ(run.candidate().padded_channels, optimize::kPaddedInputChannels) << "all padded or none";
      EXPECT_EQ(run.candidate().algorithm, 0);
    }
    // The copy of x holds the largest micro-batch (1.2 MiB a sample in FP16): it fits 8 MiB only
    // below the whole batch, and the plan says so.
    const int largest = plan->split().runs.front().size();
    EXPECT_LT(largest, 32);
    EXPECT_GE(plan->split().workspace_bytes, optimize::padded_copy_bytes(key, largest));
    EXPECT_LE(plan->split().workspace_bytes, 8 * kMiB);
    ASSERT_TRUE(plan->undivided_time_ms());
    EXPECT_LT(plan->split().time_ms, (1.0 - optimize::kSplitMargin) * *plan->undivided_time_ms())
        << "faster by the margin than the unpadded kernel undivided";
    EXPECT_GE(source->calls_for(optimize::padded_input_key(key)), 1) << "measured as a kernel of its own";
  }
}

TEST_F(PaddedInputPlans, APaddedKernelThatIsNotFasterIsNotRun) {
  const ConvKey key = first_layer(ConvOp::kForward);
  source->add(key, rows_of(0.004));
  // As fast a sample, but the copies cost time and workspace: never worth it.
  source->add(optimize::padded_input_key(key), rows_of(0.004));
  std::shared_ptr<const runtime::ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, key, 8 * kMiB, kPolicy, kCandidates, &plan).ok());
  for (const auto& run : plan->split().runs) EXPECT_EQ(run.candidate().padded_channels, 0);
}

TEST_F(PaddedInputPlans, TheFastSearchDoesNotMeasureAPaddedKernelWhoseCopiesCostMoreThanThePlanWithout) {
  // Unpadded, 0.01 ms a sample: 0.33 ms for the batch, less than the copies of the batch alone.
  const ConvKey key = first_layer(ConvOp::kForward);
  source->add(key, rows_of(0.01));
  source->add(optimize::padded_input_key(key), rows_of(0.001));
  std::shared_ptr<const runtime::ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, key, 8 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_GT(optimize::padded_copy_ms(key, 32), 0.33);
  EXPECT_EQ(source->calls_for(optimize::padded_input_key(key)), 0);
  for (const auto& run : plan->split().runs) EXPECT_EQ(run.candidate().padded_channels, 0);
}

TEST_F(PaddedInputPlans, TheSearchDoesNotPadWhatItMustNot) {
  // Backward data (the images' gradient) is never padded, even by the exhaustive search.
  builder.set_search_mode(SearchMode::kExhaustive);
  const ConvKey data = first_layer(ConvOp::kBackwardData);
  source->add(data, rows_of(0.04));
  std::shared_ptr<const runtime::ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, data, 8 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(source->calls_for(optimize::padded_input_key(data)), 0);

  // FP32 with FMA math: no tensor cores, so the fast search does not try it.
  builder.set_search_mode(SearchMode::kFast);
  ConvKey fma = first_layer(ConvOp::kForward);
  fma.x.data_type = fma.y.data_type = fma.w.data_type = cudnn_values::kDataFloat;
  fma.conv.math_type = cudnn_values::kFmaMath;
  source->add(fma, rows_of(0.04));
  source->add(optimize::padded_input_key(fma), rows_of(0.004));
  ASSERT_TRUE(builder.plan(nullptr, fma, 8 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(source->calls_for(optimize::padded_input_key(fma)), 0);
  for (const auto& run : plan->split().runs) EXPECT_EQ(run.candidate().padded_channels, 0);
}

TEST_F(PaddedInputPlans, APaddedKernelThatCannotBeMeasuredLeavesThePlanAsItWas) {
  const ConvKey key = first_layer(ConvOp::kBackwardFilter);
  source->add(key, rows_of(0.04));
  source->fail_for(optimize::padded_input_key(key), Error(ErrorCode::kNotSupported, "cuDNN refuses it"));
  std::shared_ptr<const runtime::ExecutablePlan> plan;
  const Status planned = builder.plan(nullptr, key, 8 * kMiB, kPolicy, kCandidates, &plan);
  ASSERT_TRUE(planned.ok()) << planned.message();
  for (const auto& run : plan->split().runs) EXPECT_EQ(run.candidate().padded_channels, 0);
}

}  // namespace
}  // namespace ucudnn
