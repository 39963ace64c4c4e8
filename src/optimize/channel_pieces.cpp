#include "optimize/channel_pieces.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

#include "core/cudnn_values.h"
#include "optimize/filter_sums.h"
#include "optimize/wr_optimizer.h"

namespace ucudnn::optimize {

namespace {

// Tensor cores take channels in multiples of 8, and 8 half-precision channels are 16 bytes.
constexpr int kChannelGranule = 8;
constexpr int kPieceCounts[] = {2, 4, 8};

// FP32 and FP64: where reordering additions is exact enough, and where pieces paid.
bool single_or_double(const ConvKey& key) {
  return key.x.data_type == cudnn_values::kDataFloat || key.x.data_type == cudnn_values::kDataDouble;
}

bool supported_type(int data_type) {
  return data_type == cudnn_values::kDataFloat || data_type == cudnn_values::kDataDouble ||
         data_type == cudnn_values::kDataHalf || data_type == cudnn_values::kDataBfloat16;
}

}  // namespace

std::vector<int> channel_piece_counts(const ConvKey& key) {
  std::vector<int> counts;
  if (key.conv.group_count != 1 || key.w.dims.empty() || key.y.dims.size() < 2 || key.y.strides.size() < 2) {
    return counts;
  }
  if (!supported_type(key.x.data_type) || !supported_type(key.w.data_type) || !supported_type(key.y.data_type)) {
    return counts;
  }
  if (key.op == ConvOp::kBackwardData && !single_or_double(key)) return counts;
  const int channels = key.w.dims[0];
  if (channels != key.y.dims[1]) return counts;
  for (int pieces : kPieceCounts) {
    if (channels % pieces == 0 && (channels / pieces) % kChannelGranule == 0) counts.push_back(pieces);
  }
  return counts;
}

std::vector<int> channel_piece_counts_to_search(const ConvKey& key, SearchMode search, const std::vector<int>& sizes,
                                                const std::vector<Measurement>& rows, std::size_t workspace_limit) {
  const std::vector<int> allowed = channel_piece_counts(key);
  if (search == SearchMode::kExhaustive || allowed.empty()) return allowed;
  if (!limit_costs_speed(key, sizes, rows, workspace_limit)) return {};
  std::set<int> counts;
  if (single_or_double(key) && std::count(allowed.begin(), allowed.end(), kFastSearchPieces)) {
    counts.insert(kFastSearchPieces);
  }
  const std::vector<Measurement> priced = priced_for_split_sums(key, rows);
  const std::optional<MicroBatchSplit> plan = optimize_wr(key.batch(), sizes, priced, workspace_limit);
  for (const Measurement& whole : priced) {
    if (whole.micro_batch != key.batch() || whole.workspace_bytes <= workspace_limit) continue;
    if (plan && whole.cost_ms() >= plan->time_ms * (1.0 - kSplitMargin)) continue;
    std::size_t smallest = whole.workspace_bytes;  // its least workspace at any measured size
    for (const Measurement& row : priced) {
      if (row.candidate == whole.candidate) smallest = std::min(smallest, row.workspace_bytes);
    }
    if (smallest <= workspace_limit) continue;  // micro-batches bring it within the limit already
    for (int pieces : allowed) {
      if (smallest / static_cast<std::size_t>(pieces) <= workspace_limit) {
        counts.insert(pieces);
        break;
      }
    }
  }
  return {counts.begin(), counts.end()};
}

ConvKey channel_piece_key(const ConvKey& key, int pieces) {
  ConvKey piece = key;
  piece.w.dims[0] = key.w.dims[0] / pieces;
  piece.y.dims[1] = key.y.dims[1] / pieces;
  return piece;
}

PieceOffsets channel_piece_offsets(const ConvKey& key, int pieces, int index) {
  const std::size_t channels = static_cast<std::size_t>(key.w.dims[0] / pieces) * static_cast<std::size_t>(index);
  std::size_t per_output_channel = 1;  // the filter's elements of one output channel
  for (std::size_t d = 1; d < key.w.dims.size(); ++d) per_output_channel *= static_cast<std::size_t>(key.w.dims[d]);
  return PieceOffsets{channels * static_cast<std::size_t>(key.y.strides[1]), channels * per_output_channel};
}

bool limit_costs_speed(const ConvKey& key, const std::vector<int>& sizes, const std::vector<Measurement>& rows,
                       std::size_t workspace_limit) {
  const std::vector<Measurement> priced = priced_for_split_sums(key, rows);
  for (CallPricing pricing : {CallPricing::kIssued, CallPricing::kReplayed}) {
    const std::optional<Measurement> fastest =
        fastest_within(priced, key.batch(), std::numeric_limits<std::size_t>::max(), pricing);
    if (!fastest) return false;
    const std::optional<MicroBatchSplit> plan = optimize_wr(key.batch(), sizes, priced, workspace_limit, pricing);
    if (!plan || plan->time_ms * (1.0 - kSplitMargin) > fastest->cost_ms(pricing)) return true;
  }
  return false;
}

std::vector<Measurement> rows_from_pieces(const std::vector<Measurement>& piece_rows, int pieces) {
  std::vector<Measurement> rows = piece_rows;
  for (Measurement& row : rows) {
    row.candidate.channel_pieces = pieces;
    row.time_ms *= pieces;
    row.host_ms *= pieces;
  }
  return rows;
}

std::vector<int> input_piece_counts(const ConvKey& key) {
  std::vector<int> counts;
  if (key.op != ConvOp::kForward || key.conv.group_count != 1 || key.x.dims.size() < 2 || key.w.dims.size() < 2 ||
      !single_or_double(key) || key.w.data_type != key.x.data_type || key.w.dims[1] != key.x.dims[1]) {
    return counts;
  }
  const int channels = key.x.dims[1];
  for (int pieces : kPieceCounts) {
    if (channels % pieces == 0 && (channels / pieces) % kChannelGranule == 0) counts.push_back(pieces);
  }
  return counts;
}

std::vector<int> input_piece_counts_to_search(const ConvKey& key, SearchMode search) {
  if (search != SearchMode::kExhaustive) return {};
  return input_piece_counts(key);
}

ConvKey input_piece_key(const ConvKey& key, int pieces) {
  ConvKey piece = key;
  piece.x.dims[1] = key.x.dims[1] / pieces;
  piece.w.dims[1] = key.w.dims[1] / pieces;
  return piece;
}

ConvKey piece_key_of(const ConvKey& key, const Candidate& candidate) {
  if (candidate.input_pieces > 1) return input_piece_key(key, candidate.input_pieces);
  if (candidate.channel_pieces > 1) return channel_piece_key(key, candidate.channel_pieces);
  return key;
}

std::size_t input_piece_x_offset(const ConvKey& key, int pieces, int index) {
  return static_cast<std::size_t>(key.x.dims[1] / pieces) * static_cast<std::size_t>(index) *
         static_cast<std::size_t>(key.x.strides[1]);
}

std::size_t input_piece_filter_bytes(const ConvKey& key, int pieces) {
  constexpr std::size_t kAlign = 256;
  std::size_t elements = 1;
  for (int d : input_piece_key(key, pieces).w.dims) elements *= static_cast<std::size_t>(d);
  const std::size_t bytes = elements * (key.w.data_type == cudnn_values::kDataDouble ? 8 : 4);
  return (bytes + kAlign - 1) / kAlign * kAlign;
}

double input_piece_copy_ms(const ConvKey& key, int pieces) {
  // A strided read and a packed write of the piece's filter, at a strided copy's bandwidth.
  constexpr double kLaunchMs = 0.003, kBytesPerMs = 1.0e9;
  return kLaunchMs + 2.0 * static_cast<double>(input_piece_filter_bytes(key, pieces)) / kBytesPerMs;
}

std::vector<Measurement> rows_from_input_pieces(const ConvKey& key, const std::vector<Measurement>& piece_rows,
                                                int pieces) {
  std::vector<Measurement> rows;
  const double copy_ms = input_piece_copy_ms(key, pieces);
  for (const Measurement& piece : piece_rows) {
    if (piece.candidate.channel_pieces != 1 || piece.candidate.padded_channels != 0) continue;
    Measurement row = piece;
    row.candidate.input_pieces = pieces;
    row.time_ms = pieces * (piece.time_ms + copy_ms);
    if (row.host_ms > 0.0) row.host_ms = pieces * (piece.host_ms + kInputPieceCopyHostMs);
    row.workspace_bytes += input_piece_filter_bytes(key, pieces);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace ucudnn::optimize
