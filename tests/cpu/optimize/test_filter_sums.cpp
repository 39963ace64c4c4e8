// A half-precision backward filter split summed in FP32 (optimize/filter_sums.h): which kernels,
// the accumulator's workspace, how rows are priced, and that the WR program then splits only where
// the doubled calls and the accumulator still pay.

#include <gtest/gtest.h>

#include <vector>

#include "core/cudnn_values.h"
#include "optimize/filter_sums.h"
#include "optimize/wr_optimizer.h"
#include "measurement_rows.h"

namespace ucudnn {
namespace {

using testing::engine_row;
using testing::legacy_row;

constexpr std::size_t kMiB = std::size_t{1} << 20;

// ResNet's first layer's backward filter at batch 64: 64 x 3 x 7 x 7 = 9,408 filter elements.
ConvKey first_layer(int data_type, ConvOp op = ConvOp::kBackwardFilter) {
  ConvKey key;
  key.op = op;
  key.x.data_type = key.y.data_type = key.w.data_type = data_type;
  key.x.dims = {64, 3, 224, 224};
  key.x.strides = {3 * 224 * 224, 1, 224 * 3, 3};
  key.y.dims = {64, 64, 112, 112};
  key.y.strides = {64 * 112 * 112, 1, 112 * 64, 64};
  key.w.dims = {64, 3, 7, 7};
  return key;
}

TEST(Fp32FilterSums, OnlyHalfPrecisionFilterGradientsSumInFp32) {
  EXPECT_TRUE(optimize::sums_in_fp32(first_layer(cudnn_values::kDataHalf)));
  EXPECT_TRUE(optimize::sums_in_fp32(first_layer(cudnn_values::kDataBfloat16)));
  EXPECT_FALSE(optimize::sums_in_fp32(first_layer(cudnn_values::kDataFloat)));
  EXPECT_FALSE(optimize::sums_in_fp32(first_layer(cudnn_values::kDataDouble)));
  EXPECT_FALSE(optimize::sums_in_fp32(first_layer(cudnn_values::kDataHalf, ConvOp::kForward)));
  EXPECT_FALSE(optimize::sums_in_fp32(first_layer(cudnn_values::kDataHalf, ConvOp::kBackwardData)));
}

TEST(Fp32FilterSums, TheAccumulatorIsTheFilterInFp32RoundedUpTo256Bytes) {
  // 9,408 x 4 = 37,632 bytes: 147 x 256 already.
  EXPECT_EQ(optimize::fp32_sum_bytes(first_layer(cudnn_values::kDataHalf)), 37632u);
  EXPECT_EQ(optimize::fp32_sum_bytes(first_layer(cudnn_values::kDataBfloat16)), 37632u);
  // 3 x 3 x 3 x 3 = 81 elements, 324 bytes: rounded up to 512.
  ConvKey small = first_layer(cudnn_values::kDataHalf);
  small.w.dims = {3, 3, 3, 3};
  EXPECT_EQ(optimize::fp32_sum_bytes(small), 512u);
  EXPECT_EQ(optimize::fp32_sum_bytes(first_layer(cudnn_values::kDataFloat)), 0u);
}

TEST(Fp32FilterSums, RowsBelowTheBatchCostTwoCallsAndThreePassesAndTheAccumulator) {
  const ConvKey key = first_layer(cudnn_values::kDataBfloat16);
  Measurement piece = legacy_row(8, 1, 0.04, 7 * kMiB);
  piece.host_ms = 0.01;
  const Measurement whole = legacy_row(64, 0, 2.8, 0);
  const Measurement engine = engine_row(16, "eng65", 0.1, kMiB);
  const std::vector<Measurement> priced = optimize::priced_for_split_sums(key, {piece, whole, engine});
  ASSERT_EQ(priced.size(), 3u);
  const double pass = optimize::fp32_sum_pass_ms(key);
  EXPECT_GT(pass, 0.0);
  EXPECT_DOUBLE_EQ(priced[0].time_ms, 2 * 0.04 + 3 * pass);
  EXPECT_DOUBLE_EQ(priced[0].host_ms, 2 * 0.01 + 3 * optimize::kFp32SumPassHostMs);
  EXPECT_EQ(priced[0].workspace_bytes, 7 * kMiB + optimize::fp32_sum_bytes(key));
  EXPECT_EQ(priced[0].candidate.algorithm, 1);
  // The whole batch runs as one call: as measured.
  EXPECT_DOUBLE_EQ(priced[1].time_ms, 2.8);
  EXPECT_EQ(priced[1].workspace_bytes, 0u);
  EXPECT_DOUBLE_EQ(priced[2].time_ms, 2 * 0.1 + 3 * pass);
  EXPECT_EQ(priced[2].host_ms, 0.0);  // not measured stays not measured
  EXPECT_EQ(priced[2].candidate.engine_id, "eng65");

  // An FP32 filter gradient's rows are its own: its split adds in FP32 with beta = 1.
  const std::vector<Measurement> float_rows =
      optimize::priced_for_split_sums(first_layer(cudnn_values::kDataFloat), {piece, whole});
  EXPECT_DOUBLE_EQ(float_rows[0].time_ms, 0.04);
  EXPECT_EQ(float_rows[0].workspace_bytes, 7 * kMiB);
}

TEST(Fp32FilterSums, TheProgramSplitsWhereThePricedPiecesStillWinAndTheAccumulatorFits) {
  // The fast algorithm needs 0.84 MiB per sample, the slow one none (ResNet-50 BF16's first layer
  // on an H100, rounded).
  const ConvKey key = first_layer(cudnn_values::kDataBfloat16);
  const std::size_t per_sample = 880 * 1024;
  std::vector<Measurement> rows = {legacy_row(64, 0, 2.8, 0)};
  for (int size : {1, 2, 4, 8, 16, 32, 64}) {
    rows.push_back(legacy_row(size, 1, 0.3 * size / 64 + 0.005, per_sample * size));
  }
  const std::vector<int> sizes = {1, 2, 4, 8, 16, 32, 64};
  const std::vector<Measurement> priced = optimize::priced_for_split_sums(key, rows);
  const std::size_t accumulator = optimize::fp32_sum_bytes(key);

  const auto split = optimize::optimize_wr(64, sizes, priced, 8 * kMiB);
  ASSERT_TRUE(split);
  EXPECT_GT(split->micro_batch_count(), 1);
  for (const auto& run : split->runs) EXPECT_EQ(run.candidate().algorithm, 1);
  EXPECT_LE(split->workspace_bytes, 8 * kMiB);
  EXPECT_EQ(split->workspace_bytes, per_sample * split->runs.front().size() + accumulator);
  EXPECT_LT(split->time_ms, 2.8 / 2);

  // Eight samples fit 7 MiB on their own but not beside the accumulator: four per call then.
  const auto tighter = optimize::optimize_wr(64, sizes, priced, per_sample * 8 + accumulator - 1);
  ASSERT_TRUE(tighter);
  EXPECT_EQ(tighter->runs.front().size(), 4);

  // Where the doubled calls cost more than the undivided slow one, the whole batch stays one call.
  std::vector<Measurement> slow_pieces = {legacy_row(64, 0, 0.5, 0)};
  for (int size : {1, 2, 4, 8, 16, 32}) slow_pieces.push_back(legacy_row(size, 1, 0.3 * size / 64 + 0.005, 0));
  const auto undivided = optimize::optimize_wr(64, sizes, optimize::priced_for_split_sums(key, slow_pieces), 8 * kMiB);
  ASSERT_TRUE(undivided);
  EXPECT_EQ(undivided->micro_batch_count(), 1);
  // ...which the same rows unpriced would have split (what the pricing prevents).
  const auto unpriced = optimize::optimize_wr(64, sizes, slow_pieces, 8 * kMiB);
  ASSERT_TRUE(unpriced);
  EXPECT_GT(unpriced->micro_batch_count(), 1);
}

}  // namespace
}  // namespace ucudnn
