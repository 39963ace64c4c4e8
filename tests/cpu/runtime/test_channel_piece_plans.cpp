// The plan builder with output-channel pieces (optimize/channel_pieces.h) on recorded rows: under
// the exhaustive search, a kernel whose fast algorithm needs more than the limit at every
// micro-batch size gets its pieces measured as kernels of their own and runs them where they win;
// where the fast algorithm fits no piece is asked for, and the fast search asks for the count its
// workspace calls for.

#include <gtest/gtest.h>

#include <vector>

#include "core/cudnn_values.h"
#include "measurement_rows.h"
#include "optimize/channel_pieces.h"
#include "recorded_planning.h"

namespace ucudnn {
namespace {

using testing::kCandidates;
using testing::kMiB;
using testing::kPolicy;
using testing::legacy_row;
using testing::PlanBuilder;
using testing::RecordedSource;

// ResNet-50's layer4 3x3 convolution at batch 64, FP32 NCHW: 512 -> 512 channels on 7 x 7.
ConvKey layer4_conv2() {
  ConvKey key;
  key.op = ConvOp::kForward;
  key.x.data_type = key.y.data_type = key.w.data_type = cudnn_values::kDataFloat;
  key.x.dims = {64, 512, 7, 7};
  key.x.strides = {512 * 49, 49, 7, 1};
  key.y.dims = {64, 512, 7, 7};
  key.y.strides = {512 * 49, 49, 7, 1};
  key.w.dims = {512, 512, 3, 3};
  key.conv.compute_type = cudnn_values::kDataFloat;
  key.conv.pads = {1, 1};
  key.conv.strides = {1, 1};
  key.conv.dilations = {1, 1};
  key.conv.mode = cudnn_values::kCrossCorrelation;
  return key;
}

// Rows of a kernel with `channels` of the 512 output channels, as cuDNN's algo 1 behaves on the
// H200: a transposed filter (channels x 512 x 9 x 4 bytes) beside the micro-batch's own share;
// algo 0 needs nothing and is 8x slower.
std::vector<Measurement> rows_with(int channels) {
  std::vector<Measurement> rows;
  const std::size_t filter = static_cast<std::size_t>(channels) * 512 * 9 * 4;
  for (int size = 64; size >= 1; size /= 2) {
    const double share = static_cast<double>(channels) / 512.0;
    const std::size_t workspace = filter + 200'000 * static_cast<std::size_t>(size);
    rows.push_back(legacy_row(size, 1, 0.0002 + 0.0014 * size * share, workspace));
    rows.push_back(legacy_row(size, 0, 0.012 * size * share, 0));
  }
  return rows;
}

class ChannelPiecePlans : public ::testing::Test {
 protected:
  void SetUp() override {
    builder.set_search_mode(SearchMode::kExhaustive);
    source->add(key, rows_with(512));
    for (int pieces : optimize::channel_piece_counts(key)) {
      source->add(optimize::channel_piece_key(key, pieces), rows_with(512 / pieces));
    }
  }
  const ConvKey key = layer4_conv2();
  std::shared_ptr<RecordedSource> source = std::make_shared<RecordedSource>();
  PlanBuilder builder{source, nullptr};
};

TEST_F(ChannelPiecePlans, AFastAlgorithmOverTheLimitRunsInPiecesThatFit) {
  std::shared_ptr<const runtime::ExecutablePlan> plan;
  const Status planned = builder.plan(nullptr, key, 8 * kMiB, kPolicy, kCandidates, &plan);
  ASSERT_TRUE(planned.ok()) << planned.message();
  ASSERT_FALSE(plan->split().runs.empty());
  EXPECT_LE(plan->split().workspace_bytes, 8 * kMiB);
  for (const auto& run : plan->split().runs) {
    EXPECT_EQ(run.candidate().algorithm, 1) << "the fast algorithm, in pieces";
    EXPECT_GT(run.candidate().channel_pieces, 1);
  }
  // The whole 512-channel filter alone (9.4 MB) is over the limit: algo 0 would run undivided.
  ASSERT_TRUE(plan->undivided_time_ms());
  EXPECT_DOUBLE_EQ(*plan->undivided_time_ms(), 0.012 * 64) << "one call of the whole kernel (algo 0), not pieces";
  EXPECT_LT(plan->split().time_ms, *plan->undivided_time_ms() * 0.5);
  EXPECT_GE(source->calls_for(optimize::channel_piece_key(key, 2)), 1) << "pieces measured as a kernel";
}

TEST_F(ChannelPiecePlans, WhereTheFastAlgorithmFitsNoPieceIsMeasured) {
  std::shared_ptr<const runtime::ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, key, 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  for (const auto& run : plan->split().runs) EXPECT_EQ(run.candidate().channel_pieces, 1);
  for (int pieces : optimize::channel_piece_counts(key)) {
    EXPECT_EQ(source->calls_for(optimize::channel_piece_key(key, pieces)), 0) << pieces << " pieces";
  }
}

TEST_F(ChannelPiecePlans, TheFastSearchLooksAtThePiecesTheWorkspaceCallsForInEveryPrecision) {
  builder.set_search_mode(SearchMode::kFast);
  std::shared_ptr<const runtime::ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, key, 8 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_GE(source->calls_for(optimize::channel_piece_key(key, 2)), 1);
  EXPECT_EQ(source->calls_for(optimize::channel_piece_key(key, 4)), 0);
  EXPECT_EQ(source->calls_for(optimize::channel_piece_key(key, 8)), 0);
  for (const auto& run : plan->split().runs) EXPECT_EQ(run.candidate().channel_pieces, 2);

  // The same kernel in BF16: the transposed filter (9.4 MB) is over the limit at every micro-batch
  // and half of it is not, so two pieces are measured and run, as in FP32.
  ConvKey bf16 = key;
  bf16.x.data_type = bf16.y.data_type = bf16.w.data_type = cudnn_values::kDataBfloat16;
  source->add(bf16, rows_with(512));
  for (int pieces : optimize::channel_piece_counts(bf16)) {
    source->add(optimize::channel_piece_key(bf16, pieces), rows_with(512 / pieces));
  }
  ASSERT_TRUE(builder.plan(nullptr, bf16, 8 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_GE(source->calls_for(optimize::channel_piece_key(bf16, 2)), 1);
  EXPECT_EQ(source->calls_for(optimize::channel_piece_key(bf16, 4)), 0);
  for (const auto& run : plan->split().runs) EXPECT_EQ(run.candidate().channel_pieces, 2);

  // An FP16 kernel whose fast algorithm needs 1 MiB a sample and nothing else: micro-batches fit it,
  // so no piece is asked for, though the limit costs it speed.
  ConvKey half = key;
  half.x.data_type = half.y.data_type = half.w.data_type = cudnn_values::kDataHalf;
  std::vector<Measurement> per_sample;
  for (int size = 64; size >= 1; size /= 2) {
    per_sample.push_back(legacy_row(size, 1, 0.02 + 0.0014 * size, kMiB * static_cast<std::size_t>(size)));
    per_sample.push_back(legacy_row(size, 0, 0.012 * size, 0));
  }
  source->add(half, per_sample);
  ASSERT_TRUE(builder.plan(nullptr, half, 8 * kMiB, kPolicy, kCandidates, &plan).ok());
  for (int pieces : optimize::channel_piece_counts(half)) {
    EXPECT_EQ(source->calls_for(optimize::channel_piece_key(half, pieces)), 0) << pieces << " pieces";
  }
  for (const auto& run : plan->split().runs) EXPECT_EQ(run.candidate().algorithm, 1) << "on micro-batches";
}

TEST_F(ChannelPiecePlans, PieceCountsStopOnceThePlanIsWithinTheMarginOfTheUnlimitedSpeed) {
  std::shared_ptr<const runtime::ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, key, 8 * kMiB, kPolicy, kCandidates, &plan).ok());
  // Two pieces (4.7 MB of filter each) already run near algo 1's unlimited speed.
  EXPECT_EQ(source->calls_for(optimize::channel_piece_key(key, 8)), 0);
}

// Forward's input-channel pieces: rows of a piece of C / P input channels, as algo 1 behaves when
// its workspace is the filter's transform (C / P x 512 x 9 x 4 bytes per piece).
std::vector<Measurement> input_rows_with(int channels) {
  std::vector<Measurement> rows;
  const std::size_t filter = static_cast<std::size_t>(channels) * 512 * 9 * 4;
  for (int size = 64; size >= 1; size /= 2) {
    const double share = static_cast<double>(channels) / 512.0;
    rows.push_back(
        legacy_row(size, 1, 0.0002 + 0.0014 * size * share, filter + 200'000 * static_cast<std::size_t>(size)));
    rows.push_back(legacy_row(size, 0, 0.012 * size * share, 0));
  }
  return rows;
}

TEST(InputPiecePlans, TheExhaustiveSearchRunsInputPiecesWhereOnlyTheyFitAndTheFastSearchDoesNotAskForThem) {
  auto source = std::make_shared<RecordedSource>();
  PlanBuilder builder{source, nullptr};
  builder.set_search_mode(SearchMode::kExhaustive);
  const ConvKey key = layer4_conv2();
  source->add(key, rows_with(512));
  // Output pieces cuDNN cannot run here (a source that fails them), input pieces that fit.
  for (int pieces : optimize::channel_piece_counts(key)) {
    source->fail_for(optimize::channel_piece_key(key, pieces), Error(ErrorCode::kNotSupported, "refused"));
  }
  for (int pieces : optimize::input_piece_counts(key)) {
    source->add(optimize::input_piece_key(key, pieces), input_rows_with(512 / pieces));
  }
  std::shared_ptr<const runtime::ExecutablePlan> plan;
  const Status planned = builder.plan(nullptr, key, 8 * kMiB, kPolicy, kCandidates, &plan);
  ASSERT_TRUE(planned.ok()) << planned.message();
  for (const auto& run : plan->split().runs) {
    EXPECT_EQ(run.candidate().algorithm, 1);
    EXPECT_GT(run.candidate().input_pieces, 1);
  }
  EXPECT_LE(plan->split().workspace_bytes, 8 * kMiB);
  EXPECT_TRUE(plan->split().later_calls_accumulate(ConvOp::kForward)) << "later pieces add into y";

  auto fast_source = std::make_shared<RecordedSource>();
  PlanBuilder fast{fast_source, nullptr};
  fast_source->add(key, rows_with(512));
  for (int pieces : optimize::input_piece_counts(key)) {
    fast_source->add(optimize::input_piece_key(key, pieces), input_rows_with(512 / pieces));
  }
  ASSERT_TRUE(fast.plan(nullptr, key, 8 * kMiB, kPolicy, kCandidates, &plan).ok());
  for (int pieces : optimize::input_piece_counts(key)) {
    EXPECT_EQ(fast_source->calls_for(optimize::input_piece_key(key, pieces)), 0) << pieces;
  }
}

}  // namespace
}  // namespace ucudnn
