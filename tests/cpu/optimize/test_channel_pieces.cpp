// Output-channel pieces (optimize/channel_pieces.h): which kernels may be cut and into how many
// pieces, the piece's key and its slices' offsets, the rows of the whole kernel made from a
// piece's rows, and when the limit costs a kernel enough speed to look for pieces at all.

#include <gtest/gtest.h>

#include <vector>

#include "core/cudnn_values.h"
#include "optimize/channel_pieces.h"
#include "optimize/wr_optimizer.h"
#include "measurement_rows.h"

namespace ucudnn {
namespace {

using testing::legacy_row;

constexpr std::size_t kMiB = std::size_t{1} << 20;

// A 3x3 convolution of 32 x 256 x 14 x 14 into `k` channels of 14 x 14, NCHW or NHWC.
ConvKey kernel(ConvOp op, int data_type, int k, bool nhwc = false) {
  ConvKey key;
  key.op = op;
  key.x.data_type = key.y.data_type = key.w.data_type = data_type;
  key.w.format = nhwc ? cudnn_values::kTensorNhwc : cudnn_values::kTensorNchw;
  key.x.dims = {32, 256, 14, 14};
  key.x.strides = nhwc ? std::vector<int>{256 * 196, 1, 14 * 256, 256} : std::vector<int>{256 * 196, 196, 14, 1};
  key.y.dims = {32, k, 14, 14};
  key.y.strides = nhwc ? std::vector<int>{k * 196, 1, 14 * k, k} : std::vector<int>{k * 196, 196, 14, 1};
  key.w.dims = {k, 256, 3, 3};
  key.conv.pads = {1, 1};
  key.conv.strides = {1, 1};
  key.conv.dilations = {1, 1};
  return key;
}

TEST(ChannelPieces, PieceCountsKeepEightChannelsAPieceAndSkipWhatCannotBeCutExactly) {
  using V = std::vector<int>;
  EXPECT_EQ(optimize::channel_piece_counts(kernel(ConvOp::kForward, cudnn_values::kDataFloat, 64)), (V{2, 4, 8}));
  EXPECT_EQ(optimize::channel_piece_counts(kernel(ConvOp::kForward, cudnn_values::kDataFloat, 48)), (V{2}));
  EXPECT_EQ(optimize::channel_piece_counts(kernel(ConvOp::kForward, cudnn_values::kDataFloat, 8)), (V{}));
  EXPECT_EQ(optimize::channel_piece_counts(kernel(ConvOp::kForward, cudnn_values::kDataFloat, 12)), (V{}));
  // Forward and backward filter write disjoint slices in every precision.
  EXPECT_EQ(optimize::channel_piece_counts(kernel(ConvOp::kBackwardFilter, cudnn_values::kDataHalf, 32, true)),
            (V{2, 4}));
  EXPECT_EQ(optimize::channel_piece_counts(kernel(ConvOp::kForward, cudnn_values::kDataBfloat16, 16, true)), (V{2}));
  // Backward data sums its pieces: FP32 and FP64 only.
  EXPECT_EQ(optimize::channel_piece_counts(kernel(ConvOp::kBackwardData, cudnn_values::kDataFloat, 32)), (V{2, 4}));
  EXPECT_EQ(optimize::channel_piece_counts(kernel(ConvOp::kBackwardData, cudnn_values::kDataDouble, 16)), (V{2}));
  EXPECT_EQ(optimize::channel_piece_counts(kernel(ConvOp::kBackwardData, cudnn_values::kDataHalf, 64, true)), (V{}));
  EXPECT_EQ(optimize::channel_piece_counts(kernel(ConvOp::kBackwardData, cudnn_values::kDataBfloat16, 64, true)),
            (V{}));
  ConvKey grouped = kernel(ConvOp::kForward, cudnn_values::kDataFloat, 64);
  grouped.conv.group_count = 2;
  grouped.w.dims[1] = 128;
  EXPECT_EQ(optimize::channel_piece_counts(grouped), (V{})) << "a piece would cut across groups";
  ConvKey int8 = kernel(ConvOp::kForward, 3 /* CUDNN_DATA_INT8 */, 64);
  EXPECT_EQ(optimize::channel_piece_counts(int8), (V{}));
}

// Rows of a kernel at `sizes` whose fast algorithm 1 needs `fixed` bytes whatever the micro-batch
// (a transform or copy of the filter) plus `per_sample` bytes a sample, with a cost per call, and
// several times as fast as algorithm 0, which needs none.
std::vector<Measurement> fixed_workspace_rows(const std::vector<int>& sizes, std::size_t fixed,
                                              std::size_t per_sample) {
  std::vector<Measurement> rows;
  for (int size : sizes) {
    rows.push_back(legacy_row(size, 1, 0.05 + 0.01 * size, fixed + per_sample * static_cast<std::size_t>(size)));
    rows.push_back(legacy_row(size, 0, 0.1 * size, 0));
  }
  return rows;
}

TEST(ChannelPieces, TheExhaustiveSearchLooksAtEveryCountAndTheFastAtWhatTheWorkspaceSays) {
  using V = std::vector<int>;
  const std::vector<int> sizes = {32, 16, 8, 4, 2, 1};
  const ConvKey fp32 = kernel(ConvOp::kForward, cudnn_values::kDataFloat, 64);
  const ConvKey half = kernel(ConvOp::kBackwardFilter, cudnn_values::kDataHalf, 64, true);
  const ConvKey bf16 = kernel(ConvOp::kForward, cudnn_values::kDataBfloat16, 64, true);
  const std::vector<Measurement> fits = fixed_workspace_rows(sizes, 0, kMiB);  // 1 MiB a sample
  const std::vector<Measurement> fixed_13 = fixed_workspace_rows(sizes, 13 * kMiB, 0);
  const std::vector<Measurement> fixed_30 = fixed_workspace_rows(sizes, 30 * kMiB, 0);
  EXPECT_EQ(optimize::channel_piece_counts_to_search(fp32, SearchMode::kExhaustive, sizes, fits, 8 * kMiB),
            (V{2, 4, 8}));
  EXPECT_EQ(optimize::channel_piece_counts_to_search(half, SearchMode::kExhaustive, sizes, fits, 8 * kMiB),
            (V{2, 4, 8}));
  // Micro-batches bring the fast algorithm within the limit: FP32 still tries two pieces (they won
  // there on the H200), half precision none.
  EXPECT_EQ(optimize::channel_piece_counts_to_search(fp32, SearchMode::kFast, sizes, fits, 8 * kMiB), (V{2}));
  EXPECT_EQ(optimize::channel_piece_counts_to_search(bf16, SearchMode::kFast, sizes, fits, 8 * kMiB), (V{}));
  // 13 MiB at any micro-batch: two pieces of it might fit 8 MiB, in every precision.
  EXPECT_EQ(optimize::channel_piece_counts_to_search(bf16, SearchMode::kFast, sizes, fixed_13, 8 * kMiB), (V{2}));
  EXPECT_EQ(optimize::channel_piece_counts_to_search(half, SearchMode::kFast, sizes, fixed_13, 8 * kMiB), (V{2}));
  EXPECT_EQ(optimize::channel_piece_counts_to_search(fp32, SearchMode::kFast, sizes, fixed_13, 8 * kMiB), (V{2}));
  // 30 MiB: four pieces; FP32 also keeps its two.
  EXPECT_EQ(optimize::channel_piece_counts_to_search(bf16, SearchMode::kFast, sizes, fixed_30, 8 * kMiB), (V{4}));
  EXPECT_EQ(optimize::channel_piece_counts_to_search(fp32, SearchMode::kFast, sizes, fixed_30, 8 * kMiB), (V{2, 4}));
  // More than eight pieces would need: none tried.
  const std::vector<Measurement> fixed_90 = fixed_workspace_rows(sizes, 90 * kMiB, 0);
  EXPECT_EQ(optimize::channel_piece_counts_to_search(bf16, SearchMode::kFast, sizes, fixed_90, 8 * kMiB), (V{}));
  // The limit costs nothing: nothing tried, whatever the precision.
  EXPECT_EQ(optimize::channel_piece_counts_to_search(bf16, SearchMode::kFast, sizes, fixed_13, 16 * kMiB), (V{}));
  EXPECT_EQ(optimize::channel_piece_counts_to_search(fp32, SearchMode::kFast, sizes, fixed_13, 16 * kMiB), (V{}));
  ConvKey grouped = fp32;
  grouped.conv.group_count = 2;
  EXPECT_EQ(optimize::channel_piece_counts_to_search(grouped, SearchMode::kExhaustive, sizes, fits, 8 * kMiB), (V{}));
}

TEST(ChannelPieces, AHalfPrecisionFilterGradientsFp32SumsCountAgainstMicroBatches) {
  using V = std::vector<int>;
  // 64 x 256 x 3 x 3 FP16 filter: its FP32 accumulator is 576 KiB. A fast algorithm needing 3.5 MiB
  // a micro-batch fits 4 MiB undivided only as two pieces (7 MiB whole), and split into
  // micro-batches only with the accumulator beside it: with it, 4.06 MiB, so pieces are tried.
  const std::vector<int> sizes = {32, 16, 8, 4, 2, 1};
  const ConvKey half = kernel(ConvOp::kBackwardFilter, cudnn_values::kDataHalf, 64, true);
  std::vector<Measurement> rows = fixed_workspace_rows(sizes, 3 * kMiB + kMiB / 2, 0);
  rows[0].workspace_bytes = 7 * kMiB;  // algo 1 on the whole batch
  EXPECT_EQ(optimize::channel_piece_counts_to_search(half, SearchMode::kFast, sizes, rows, 4 * kMiB), (V{2}));
  // The same workspace in a forward kernel (no sums): micro-batches fit it, no pieces.
  const ConvKey forward = kernel(ConvOp::kForward, cudnn_values::kDataHalf, 64, true);
  EXPECT_EQ(optimize::channel_piece_counts_to_search(forward, SearchMode::kFast, sizes, rows, 4 * kMiB), (V{}));
}

TEST(ChannelPieces, LaterCallsAccumulateInSplitFilterGradientsAndDataGradientPieces) {
  optimize::MicroBatchSplit whole;
  whole.runs.push_back(optimize::MicroBatchRun{});
  whole.runs[0].row.micro_batch = 32;
  whole.runs[0].count = 1;
  optimize::MicroBatchSplit split = whole;
  split.runs[0].row.micro_batch = 16;
  split.runs[0].count = 2;
  optimize::MicroBatchSplit pieced = whole;
  pieced.runs[0].row.candidate.channel_pieces = 2;
  EXPECT_FALSE(whole.later_calls_accumulate(ConvOp::kBackwardFilter));
  EXPECT_TRUE(split.later_calls_accumulate(ConvOp::kBackwardFilter));
  EXPECT_FALSE(split.later_calls_accumulate(ConvOp::kBackwardData)) << "micro-batches of dx are disjoint";
  EXPECT_FALSE(split.later_calls_accumulate(ConvOp::kForward));
  EXPECT_TRUE(pieced.later_calls_accumulate(ConvOp::kBackwardData)) << "pieces add into one dx";
  EXPECT_FALSE(pieced.later_calls_accumulate(ConvOp::kForward)) << "pieces write disjoint slices of y";
  EXPECT_FALSE(pieced.later_calls_accumulate(ConvOp::kBackwardFilter)) << "and of dw";
  optimize::MicroBatchSplit input_pieced = whole;
  input_pieced.runs[0].row.candidate.input_pieces = 2;
  EXPECT_TRUE(input_pieced.later_calls_accumulate(ConvOp::kForward)) << "input pieces add into one y";
  EXPECT_TRUE(input_pieced.in_channel_pieces());
}

TEST(ChannelPieces, APieceIsAKernelOfItsOwnWithTheWholeTensorsStrides) {
  const ConvKey key = kernel(ConvOp::kForward, cudnn_values::kDataFloat, 64);
  const ConvKey piece = optimize::channel_piece_key(key, 4);
  EXPECT_EQ(piece.w.dims, (std::vector<int>{16, 256, 3, 3}));
  EXPECT_EQ(piece.y.dims, (std::vector<int>{32, 16, 14, 14}));
  EXPECT_EQ(piece.y.strides, key.y.strides) << "a strided view of y, not a packed tensor";
  EXPECT_EQ(piece.x.dims, key.x.dims);
  EXPECT_EQ(piece.batch(), key.batch());
  const ConvKey packed = kernel(ConvOp::kForward, cudnn_values::kDataFloat, 16);
  EXPECT_NE(piece.layer_signature(), packed.layer_signature()) << "stored apart from a packed 16-channel kernel";
  EXPECT_NE(piece.layer_signature(), key.layer_signature());
}

TEST(ChannelPieces, OffsetsAreThePiecesFirstChannelInYAndItsFilterRows) {
  const ConvKey nchw = kernel(ConvOp::kBackwardFilter, cudnn_values::kDataFloat, 64);
  EXPECT_EQ(optimize::channel_piece_offsets(nchw, 4, 0).y_elements, 0u);
  EXPECT_EQ(optimize::channel_piece_offsets(nchw, 4, 0).w_elements, 0u);
  EXPECT_EQ(optimize::channel_piece_offsets(nchw, 4, 3).y_elements, 48u * 196u) << "channel 48's plane";
  EXPECT_EQ(optimize::channel_piece_offsets(nchw, 4, 3).w_elements, 48u * 256u * 9u);
  const ConvKey nhwc = kernel(ConvOp::kForward, cudnn_values::kDataHalf, 64, true);
  EXPECT_EQ(optimize::channel_piece_offsets(nhwc, 2, 1).y_elements, 32u) << "channels are innermost";
  EXPECT_EQ(optimize::channel_piece_offsets(nhwc, 2, 1).w_elements, 32u * 256u * 9u) << "KRSC rows";
}

TEST(ChannelPieces, RowsOfTheWholeKernelRunEveryPieceWithOnePiecesWorkspace) {
  Measurement piece = legacy_row(8, 1, 0.25, 6 * kMiB);
  piece.host_ms = 0.01;
  const std::vector<Measurement> rows = optimize::rows_from_pieces({piece}, 4);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].candidate.channel_pieces, 4);
  EXPECT_DOUBLE_EQ(rows[0].time_ms, 1.0);
  EXPECT_DOUBLE_EQ(rows[0].host_ms, 0.04);
  EXPECT_EQ(rows[0].workspace_bytes, 6 * kMiB);
  EXPECT_EQ(rows[0].micro_batch, 8);
  EXPECT_FALSE(rows[0].candidate == piece.candidate) << "a different candidate from one piece's call";
}

TEST(ChannelPieces, PiecesAreSoughtOnlyWhereTheLimitCostsSpeed) {
  const ConvKey key = kernel(ConvOp::kForward, cudnn_values::kDataFloat, 64);
  const std::vector<int> sizes = {32, 16, 8, 4, 2, 1};
  std::vector<Measurement> rows;
  for (int size : sizes) {
    rows.push_back(legacy_row(size, 1, 0.01 * size, 9 * kMiB + kMiB * static_cast<std::size_t>(size)));
    rows.push_back(legacy_row(size, 0, 0.05 * size, 0));
  }
  EXPECT_TRUE(optimize::limit_costs_speed(key, sizes, rows, 8 * kMiB)) << "algo 1 never fits: 5x slower";
  EXPECT_FALSE(optimize::limit_costs_speed(key, sizes, rows, 64 * kMiB)) << "algo 1 fits the whole batch";
  EXPECT_FALSE(optimize::limit_costs_speed(key, sizes, rows, 12 * kMiB)) << "two micro-batches of 16 are as fast";
  EXPECT_TRUE(optimize::limit_costs_speed(key, sizes, {legacy_row(32, 1, 0.3, 20 * kMiB)}, 8 * kMiB))
      << "nothing fits";
  EXPECT_FALSE(optimize::limit_costs_speed(key, {16}, {legacy_row(16, 1, 0.3, 20 * kMiB)}, 8 * kMiB))
      << "no row of the whole batch: nothing to measure pieces against";

  // With pieces of algo 1 at 6 MiB, the plan reaches the unlimited speed within the margin.
  std::vector<Measurement> with_pieces = rows;
  for (int size : sizes) {
    const auto piece_rows = optimize::rows_from_pieces({legacy_row(size, 1, 0.001 + 0.0026 * size, 6 * kMiB)}, 4);
    with_pieces.insert(with_pieces.end(), piece_rows.begin(), piece_rows.end());
  }
  EXPECT_FALSE(optimize::limit_costs_speed(key, sizes, with_pieces, 8 * kMiB));
  const auto plan = optimize::optimize_wr(key.batch(), sizes, with_pieces, 8 * kMiB);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->runs.size(), 1u);
  EXPECT_EQ(plan->runs[0].candidate().channel_pieces, 4);
  EXPECT_EQ(plan->runs[0].size(), 32) << "the whole batch in four pieces";
  EXPECT_EQ(plan->workspace_bytes, 6 * kMiB);
}

// Forward's input-channel pieces: FP32 and FP64 forward with one group only, 8 channels a piece.
TEST(InputPieces, CountsKeyOffsetsAndRows) {
  using V = std::vector<int>;
  const ConvKey fwd = kernel(ConvOp::kForward, cudnn_values::kDataFloat, 64);  // 256 input channels
  EXPECT_EQ(optimize::input_piece_counts(fwd), (V{2, 4, 8}));
  EXPECT_EQ(optimize::input_piece_counts(kernel(ConvOp::kForward, cudnn_values::kDataHalf, 64, true)), (V{}))
      << "half precision would round every piece's sum";
  EXPECT_EQ(optimize::input_piece_counts(kernel(ConvOp::kBackwardData, cudnn_values::kDataFloat, 64)), (V{}));
  EXPECT_EQ(optimize::input_piece_counts(kernel(ConvOp::kBackwardFilter, cudnn_values::kDataFloat, 64)), (V{}));
  ConvKey grouped = fwd;
  grouped.conv.group_count = 2;
  grouped.w.dims[1] = 128;
  EXPECT_EQ(optimize::input_piece_counts(grouped), (V{}));
  EXPECT_EQ(optimize::input_piece_counts_to_search(fwd, SearchMode::kFast), (V{})) << "not shown to pay yet";
  EXPECT_EQ(optimize::input_piece_counts_to_search(fwd, SearchMode::kExhaustive), (V{2, 4, 8}));

  const ConvKey piece = optimize::input_piece_key(fwd, 4);
  EXPECT_EQ(piece.x.dims, (V{32, 64, 14, 14}));
  EXPECT_EQ(piece.x.strides, fwd.x.strides) << "a view of the caller's x";
  EXPECT_EQ(piece.w.dims, (V{64, 64, 3, 3}));
  EXPECT_EQ(piece.y.dims, fwd.y.dims);
  EXPECT_EQ(piece.y.strides, fwd.y.strides);
  EXPECT_EQ(optimize::piece_key_of(fwd, Candidate::legacy(1, 0).in_input_pieces(4)), piece);
  EXPECT_EQ(optimize::piece_key_of(fwd, Candidate::legacy(1, 0).in_channel_pieces(2)),
            optimize::channel_piece_key(fwd, 2));
  EXPECT_EQ(optimize::piece_key_of(fwd, Candidate::legacy(1, 0)), fwd);
  // NCHW: piece 3's first channel is 3 x 64 planes of 196 in; NHWC: 3 x 64 elements.
  EXPECT_EQ(optimize::input_piece_x_offset(fwd, 4, 3), 3u * 64 * 196);
  EXPECT_EQ(optimize::input_piece_x_offset(kernel(ConvOp::kForward, cudnn_values::kDataFloat, 64, true), 4, 3),
            3u * 64);
  // The piece's filter: 64 x 64 x 3 x 3 floats.
  EXPECT_EQ(optimize::input_piece_filter_bytes(fwd, 4), 64u * 64 * 9 * 4);

  const std::vector<Measurement> rows =
      optimize::rows_from_input_pieces(fwd, {legacy_row(32, 1, 0.5, 1000), legacy_row(16, 1, 0.3, 500)}, 4);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].candidate.input_pieces, 4);
  EXPECT_EQ(rows[0].candidate.channel_pieces, 1);
  EXPECT_DOUBLE_EQ(rows[0].time_ms, 4 * (0.5 + optimize::input_piece_copy_ms(fwd, 4)));
  EXPECT_EQ(rows[0].workspace_bytes, 1000 + optimize::input_piece_filter_bytes(fwd, 4));
}

}  // namespace
}  // namespace ucudnn
