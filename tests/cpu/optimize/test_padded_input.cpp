// The input padded with zero channels (optimize/padded_input.h): which kernels may be padded and
// which the fast search pads, the padded kernel's key, the copies' workspace and time added to its
// rows, and the split over padded rows with the copy sized for the largest micro-batch.

#include <gtest/gtest.h>

#include <vector>

#include "core/cudnn_values.h"
#include "measurement_rows.h"
#include "optimize/filter_sums.h"
#include "optimize/padded_input.h"

namespace ucudnn {
namespace {

using testing::legacy_row;

constexpr std::size_t kMiB = std::size_t{1} << 20;

// ResNet's first layer at batch 32: 3 -> 64 channels, 7 x 7 stride 2 on 224 x 224 into 112 x 112.
ConvKey first_layer(ConvOp op, int data_type, bool nhwc) {
  ConvKey key;
  key.op = op;
  key.x.data_type = key.y.data_type = key.w.data_type = data_type;
  key.w.format = nhwc ? cudnn_values::kTensorNhwc : cudnn_values::kTensorNchw;
  key.x.dims = {32, 3, 224, 224};
  key.x.strides =
      nhwc ? std::vector<int>{3 * 224 * 224, 1, 224 * 3, 3} : std::vector<int>{3 * 224 * 224, 224 * 224, 224, 1};
  key.y.dims = {32, 64, 112, 112};
  key.y.strides =
      nhwc ? std::vector<int>{64 * 112 * 112, 1, 112 * 64, 64} : std::vector<int>{64 * 112 * 112, 112 * 112, 112, 1};
  key.w.dims = {64, 3, 7, 7};
  key.conv.pads = {3, 3};
  key.conv.strides = {2, 2};
  key.conv.dilations = {1, 1};
  key.conv.compute_type = cudnn_values::kDataFloat;
  return key;
}

TEST(PaddedInput, OnlyAFirstLayersForwardAndBackwardFilterWithOneGroupArePadded) {
  EXPECT_TRUE(optimize::input_padding_allowed(first_layer(ConvOp::kForward, cudnn_values::kDataHalf, true)));
  EXPECT_TRUE(optimize::input_padding_allowed(first_layer(ConvOp::kBackwardFilter, cudnn_values::kDataBfloat16, true)));
  EXPECT_TRUE(optimize::input_padding_allowed(first_layer(ConvOp::kForward, cudnn_values::kDataFloat, false)));
  // The gradient of the images is not what training computes.
  EXPECT_FALSE(optimize::input_padding_allowed(first_layer(ConvOp::kBackwardData, cudnn_values::kDataHalf, true)));
  EXPECT_FALSE(optimize::input_padding_allowed(first_layer(ConvOp::kForward, cudnn_values::kDataDouble, false)));
  ConvKey four = first_layer(ConvOp::kForward, cudnn_values::kDataHalf, true);
  four.x.dims[1] = four.w.dims[1] = 4;
  EXPECT_FALSE(optimize::input_padding_allowed(four)) << "four channels already";
  ConvKey grouped = first_layer(ConvOp::kForward, cudnn_values::kDataHalf, true);
  grouped.conv.group_count = 3;
  grouped.w.dims[1] = 1;
  EXPECT_FALSE(optimize::input_padding_allowed(grouped));
}

TEST(PaddedInput, TheFastSearchPadsWhereTensorCoresMayRunIt) {
  ConvKey fp32 = first_layer(ConvOp::kForward, cudnn_values::kDataFloat, false);
  EXPECT_TRUE(optimize::input_padding_to_search(fp32, SearchMode::kFast)) << "default math: TF32";
  fp32.conv.math_type = cudnn_values::kFmaMath;
  EXPECT_FALSE(optimize::input_padding_to_search(fp32, SearchMode::kFast));
  EXPECT_TRUE(optimize::input_padding_to_search(fp32, SearchMode::kExhaustive));
  EXPECT_TRUE(optimize::input_padding_to_search(first_layer(ConvOp::kBackwardFilter, cudnn_values::kDataHalf, true),
                                                SearchMode::kFast));
  EXPECT_FALSE(optimize::input_padding_to_search(first_layer(ConvOp::kBackwardData, cudnn_values::kDataHalf, true),
                                                 SearchMode::kExhaustive));
}

TEST(PaddedInput, ThePaddedKernelPacksFourChannelsInTheFiltersOrderAndKeepsY) {
  const ConvKey nhwc = first_layer(ConvOp::kForward, cudnn_values::kDataHalf, true);
  const ConvKey padded = optimize::padded_input_key(nhwc);
  EXPECT_EQ(padded.x.dims, (std::vector<int>{32, 4, 224, 224}));
  EXPECT_EQ(padded.x.strides, (std::vector<int>{4 * 224 * 224, 1, 224 * 4, 4}));
  EXPECT_EQ(padded.w.dims, (std::vector<int>{64, 4, 7, 7}));
  EXPECT_EQ(padded.y.dims, nhwc.y.dims);
  EXPECT_EQ(padded.y.strides, nhwc.y.strides);
  EXPECT_NE(padded, nhwc) << "a kernel of its own in the database";
  const ConvKey nchw =
      optimize::padded_input_key(first_layer(ConvOp::kBackwardFilter, cudnn_values::kDataFloat, false));
  EXPECT_EQ(nchw.x.strides, (std::vector<int>{4 * 224 * 224, 224 * 224, 224, 1}));
  // 3-d: channels last after N.
  EXPECT_EQ(optimize::packed_strides({2, 4, 5, 6, 7}, true), (std::vector<int>{4 * 5 * 6 * 7, 1, 6 * 7 * 4, 7 * 4, 4}));
}

TEST(PaddedInput, RowsOfThePaddedKernelCarryTheCopiesWorkspaceAndTime) {
  const ConvKey key = first_layer(ConvOp::kBackwardFilter, cudnn_values::kDataHalf, true);
  const std::vector<Measurement> padded_rows = {legacy_row(32, 1, 0.2, 1000), legacy_row(8, 1, 0.06, 500)};
  const std::vector<Measurement> rows = optimize::rows_from_padded_input(key, padded_rows);
  ASSERT_EQ(rows.size(), 2u);
  // A sample's copy: 4 x 224 x 224 halves; the filter gradient's copy: 64 x 4 x 7 x 7 halves.
  const std::size_t sample = 4 * 224 * 224 * 2;
  const std::size_t filter = (64 * 4 * 49 * 2 + 255) / 256 * 256;
  EXPECT_EQ(optimize::padded_filter_bytes(key), filter);
  EXPECT_EQ(rows[0].workspace_bytes, 1000 + (32 * sample + 255) / 256 * 256 + filter) << "the whole batch: no sums";
  // Below the batch, the padded gradient's FP32 accumulator is larger than the caller's.
  const std::size_t larger = optimize::fp32_sum_bytes(optimize::padded_input_key(key)) - optimize::fp32_sum_bytes(key);
  EXPECT_GT(larger, 0u);
  EXPECT_EQ(rows[1].workspace_bytes, 500 + (8 * sample + 255) / 256 * 256 + filter + larger);
  EXPECT_DOUBLE_EQ(rows[0].time_ms, 0.2 + optimize::padded_copy_ms(key, 32));
  EXPECT_GT(optimize::padded_copy_ms(key, 32), optimize::padded_copy_ms(key, 8)) << "the copy grows with the batch";
  for (const Measurement& row : rows) EXPECT_EQ(row.candidate.padded_channels, optimize::kPaddedInputChannels);
}

TEST(PaddedInput, MeasuredCopiesReplaceTheModelsPrice) {
  const ConvKey key = first_layer(ConvOp::kForward, cudnn_values::kDataHalf, true);  // batch 32
  // 0.06 ms at one sample, 0.66 at 16: 0.04 ms a sample, 0.02 ms of launches (three a call).
  const optimize::MeasuredCopies measured{16, 0.06, 0.66};
  EXPECT_NEAR(optimize::measured_copy_ms(key, 32, measured), 1.28 + 0.02, 1e-9) << "one call of the whole batch";
  EXPECT_NEAR(optimize::measured_copy_ms(key, 8, measured), 0.32 + 0.02 * (1.0 + 2.0 * 0.25) / 3.0, 1e-9);
  const std::vector<Measurement> rows = optimize::rows_from_padded_input(key, {legacy_row(8, 1, 0.1, 0)}, measured);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NEAR(rows[0].time_ms, 0.1 + optimize::measured_copy_ms(key, 8, measured), 1e-12);
  EXPECT_GT(optimize::measured_copy_ms(key, 8, measured), optimize::padded_copy_ms(key, 8))
      << "slower than the model's bandwidth";
}

TEST(PaddedInput, TheSplitOverPaddedRowsSizesTheCopyForItsLargestMicroBatch) {
  const ConvKey key = first_layer(ConvOp::kForward, cudnn_values::kDataHalf, true);
  // Size 16 is fast but needs 3 MiB of its own; size 8 needs none. Copies: 6.1 MiB at 16, 3.1 at 8.
  std::vector<Measurement> padded_rows = {legacy_row(16, 1, 0.02, 3 * kMiB), legacy_row(8, 1, 0.03, 0)};
  const std::vector<Measurement> rows = optimize::rows_from_padded_input(key, padded_rows);
  const std::vector<int> sizes = {8, 16, 32};
  // Within 10 MiB: 2 x 16 (6.1 + 3 MiB).
  auto wide = optimize::optimize_wr_on_padded_input(key, sizes, rows, 10 * kMiB, CallPricing::kReplayed);
  ASSERT_TRUE(wide);
  ASSERT_EQ(wide->runs.size(), 1u);
  EXPECT_EQ(wide->runs[0].size(), 16);
  EXPECT_EQ(wide->workspace_bytes, 3 * kMiB + optimize::padded_copy_bytes(key, 16));
  // Within 8 MiB, 16 does not fit with its copy: 4 x 8.
  auto narrow = optimize::optimize_wr_on_padded_input(key, sizes, rows, 8 * kMiB, CallPricing::kReplayed);
  ASSERT_TRUE(narrow);
  ASSERT_EQ(narrow->runs.size(), 1u);
  EXPECT_EQ(narrow->runs[0].size(), 8);
  EXPECT_EQ(narrow->runs[0].count, 4);
  EXPECT_EQ(narrow->workspace_bytes, optimize::padded_copy_bytes(key, 8));
  EXPECT_FALSE(optimize::optimize_wr_on_padded_input(key, sizes, rows, 2 * kMiB, CallPricing::kReplayed))
      << "no copy of a micro-batch fits";
}

}  // namespace
}  // namespace ucudnn
