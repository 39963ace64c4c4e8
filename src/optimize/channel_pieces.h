#pragma once
// Output-channel pieces: a convolution split across its output channels K instead of (or as well
// as) its batch, for algorithms whose workspace grows with K and does not fit the limit even on
// one sample (a transposed copy of the filter, a K-sized tile buffer).
//
// Piece i of P computes output channels [i K/P, (i+1) K/P): the filter's rows of those channels
// (contiguous in KCRS and KRSC) and the matching slice of y (dy), a strided view of the caller's
// tensor: no copies. Forward and backward filter write disjoint slices, so each piece is exact and
// runs with the caller's alpha and beta. Backward data sums the pieces' contributions into dx: the
// first with the caller's beta, the others with beta = 1; that changes only the order of FP32
// additions, so it is offered for FP32 and FP64 only (half precision would round every piece).
//
// A piece is itself a convolution, keyed completely (its y strides are the whole tensor's), so it
// is benchmarked, stored and looked up as any kernel: no new database fields. The planner turns
// its rows into rows of the whole kernel (P calls each) and plans over them with the rest.
// CUDA-free.

#include <cstddef>
#include <vector>

#include "core/conv_key.h"
#include "core/measurement.h"
#include "core/search_mode.h"

namespace ucudnn::optimize {

/// The piece counts `key` may be split into: 2, 4 and 8 where each piece keeps a multiple of 8
/// output channels (tensor cores' granule, and 16-byte aligned slices); none for grouped
/// convolutions, other data types than FP32, FP64, FP16 and BF16, or half-precision backward data.
std::vector<int> channel_piece_counts(const ConvKey& key);

/// The piece count the fast search tries wherever the limit costs speed, in FP32 and FP64: two. On
/// the H200 (cuDNN 9.14) two pieces won there (AlexNet and ResNet-18/50 at 8 MiB, mostly backward
/// data and filter engines on micro-batches), while more counts won nothing more
/// (bench/results/h200/channel-pieces/).
inline constexpr int kFastSearchPieces = 2;

/// The piece counts a search of `key` looks at. Exhaustive: every count channel_piece_counts allows.
/// Fast, from the kernel's measured `rows` at `sizes`, in any precision: for each candidate faster
/// on the whole batch than the best plan within `workspace_limit` (by more than kSplitMargin) whose
/// workspace no measured micro-batch brings within the limit (FP32 sums' accumulator counted), the
/// fewest pieces that would bring its smallest workspace within it if the workspace followed the
/// output channels (a filter's transform or copy does, a batch's patches do not: the measured piece
/// decides). Besides, kFastSearchPieces in FP32 and FP64 wherever the limit costs speed.
std::vector<int> channel_piece_counts_to_search(const ConvKey& key, SearchMode search, const std::vector<int>& sizes,
                                                const std::vector<Measurement>& rows, std::size_t workspace_limit);

/// The kernel of one of `pieces` pieces of `key` (which channel_piece_counts allows): K / pieces
/// output channels, y's strides kept.
ConvKey channel_piece_key(const ConvKey& key, int pieces);

/// Element offsets of piece `index` of `pieces` from the start of y (dy) and of the filter (dw).
struct PieceOffsets {
  std::size_t y_elements = 0;
  std::size_t w_elements = 0;
};
PieceOffsets channel_piece_offsets(const ConvKey& key, int pieces, int index);

/// Whether the workspace limit costs `key` speed that pieces might win back: the fastest of its
/// rows on the whole batch, whatever its workspace, beats the best WR plan over `rows` at `sizes`
/// within `workspace_limit` by more than kSplitMargin (issued or replayed), or no plan fits.
/// False where no row of the whole batch is known.
bool limit_costs_speed(const ConvKey& key, const std::vector<int>& sizes, const std::vector<Measurement>& rows,
                       std::size_t workspace_limit);

/// Rows of the whole kernel from rows of its piece kernel: each runs all `pieces` pieces one after
/// another, so `pieces` times the GPU and host time of one, with one piece's workspace.
std::vector<Measurement> rows_from_pieces(const std::vector<Measurement>& piece_rows, int pieces);

// Input-channel pieces: forward split across its input channels C instead. Piece i of P convolves
// x's channels [i C/P, (i+1) C/P) (a strided view of the caller's x) with the filter's slice of
// those channels, which is not contiguous in the filter (KCRS or KRSC), so it is copied into the
// workspace first; each piece adds its share into y, the first with the caller's beta, the others
// with beta = 1. That reorders FP32 additions only: FP32 and FP64. Like output pieces, it shrinks
// what an algorithm's workspace spends on the filter (its transform), while repeating y's side.

/// The piece counts `key` may be split into over its input channels: 2, 4 and 8 where each piece
/// keeps a multiple of 8 channels; forward with one group, in FP32 or FP64, only.
std::vector<int> input_piece_counts(const ConvKey& key);
/// The piece counts a search of `key` looks at: every allowed one (exhaustive); none yet in the fast
/// search (no measurement has shown them to pay).
std::vector<int> input_piece_counts_to_search(const ConvKey& key, SearchMode search);
/// The kernel of one of `pieces` input-channel pieces of `key`: C / pieces channels of x (strides
/// kept) and of the filter (a packed copy).
ConvKey input_piece_key(const ConvKey& key, int pieces);
/// The kernel a candidate's calls run: its output- or input-channel piece, or `key` itself.
ConvKey piece_key_of(const ConvKey& key, const Candidate& candidate);
/// Element offset of input piece `index` of `pieces` from the start of x.
std::size_t input_piece_x_offset(const ConvKey& key, int pieces, int index);
/// The workspace the piece's filter copy takes before its call's own (a multiple of 256 bytes).
std::size_t input_piece_filter_bytes(const ConvKey& key, int pieces);
/// Rows of the whole kernel from rows of its input piece kernel: `pieces` calls and filter copies.
std::vector<Measurement> rows_from_input_pieces(const ConvKey& key, const std::vector<Measurement>& piece_rows,
                                                int pieces);
/// GPU and host milliseconds of one piece's filter copy.
double input_piece_copy_ms(const ConvKey& key, int pieces);
inline constexpr double kInputPieceCopyHostMs = 0.005;

}  // namespace ucudnn::optimize
