#include "optimize/padded_input.h"

#include <algorithm>
#include <set>

#include "core/cudnn_values.h"
#include "optimize/filter_sums.h"
#include "optimize/wr_optimizer.h"

namespace ucudnn::optimize {

namespace {

constexpr std::size_t kAlign = 256;
// Launch latency of a small kernel, and the bandwidth cuDNN's strided copy into 4 channels got on
// an H100 (FP16 NHWC, AlexNet's and ResNet's first layers: 66 to 131 GB/s, the lower taken), far
// below the memory's (bench/results/h100/ceiling-round-two/).
constexpr double kCopyLaunchMs = 0.003;
constexpr double kCopyBytesPerMs = 6.5e7;

std::size_t aligned(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

std::size_t bytes_of(int data_type) { return data_type == cudnn_values::kDataFloat ? 4 : 2; }

// Elements of one sample of x, or of the filter, with `channels` channels.
std::size_t product_after_first(const std::vector<int>& dims, std::size_t channels) {
  std::size_t elements = channels;
  for (std::size_t d = 2; d < dims.size(); ++d) elements *= static_cast<std::size_t>(dims[d]);
  return elements;
}

std::size_t filter_elements(const ConvKey& key, std::size_t channels) {
  return static_cast<std::size_t>(key.w.dims[0]) * product_after_first(key.w.dims, channels);
}

}  // namespace

std::vector<int> packed_strides(const std::vector<int>& dims, bool channels_last) {
  std::vector<int> strides(dims.size());
  if (!channels_last) {
    int stride = 1;
    for (std::size_t d = dims.size(); d-- > 0;) {
      strides[d] = stride;
      stride *= dims[d];
    }
    return strides;
  }
  int stride = 1;
  strides[1] = stride;
  stride *= dims[1];
  for (std::size_t d = dims.size(); d-- > 2;) {
    strides[d] = stride;
    stride *= dims[d];
  }
  strides[0] = stride;
  return strides;
}

bool input_padding_allowed(const ConvKey& key) {
  const int type = key.x.data_type;
  const bool type_ok =
      type == cudnn_values::kDataFloat || type == cudnn_values::kDataHalf || type == cudnn_values::kDataBfloat16;
  const bool shape_ok = (key.x.dims.size() == 4 || key.x.dims.size() == 5) && key.w.dims.size() == key.x.dims.size();
  return (key.op == ConvOp::kForward || key.op == ConvOp::kBackwardFilter) && key.conv.group_count == 1 && type_ok &&
         key.w.data_type == type && shape_ok && key.x.dims[1] > 0 && key.x.dims[1] < kPaddedInputChannels &&
         key.w.dims[1] == key.x.dims[1];
}

bool input_padding_to_search(const ConvKey& key, SearchMode search) {
  if (!input_padding_allowed(key)) return false;
  if (search == SearchMode::kExhaustive) return true;
  return key.x.data_type != cudnn_values::kDataFloat || key.conv.math_type != cudnn_values::kFmaMath;
}

ConvKey padded_input_key(const ConvKey& key) {
  ConvKey padded = key;
  const bool channels_last = key.w.format == cudnn_values::kTensorNhwc;
  padded.x.dims[1] = kPaddedInputChannels;
  padded.x.strides = packed_strides(padded.x.dims, channels_last);
  padded.w.dims[1] = kPaddedInputChannels;
  return padded;
}

std::size_t padded_filter_bytes(const ConvKey& key) {
  return aligned(filter_elements(key, kPaddedInputChannels) * bytes_of(key.w.data_type));
}

std::size_t padded_copy_bytes(const ConvKey& key, int size) {
  const std::size_t sample = product_after_first(key.x.dims, kPaddedInputChannels) * bytes_of(key.x.data_type);
  return aligned(static_cast<std::size_t>(size) * sample) + padded_filter_bytes(key);
}

double padded_copy_ms(const ConvKey& key, int size) {
  const std::size_t element = bytes_of(key.x.data_type);
  const std::size_t channels = static_cast<std::size_t>(key.x.dims[1]);
  const double samples = static_cast<double>(size);
  const double padded_sample = static_cast<double>(product_after_first(key.x.dims, kPaddedInputChannels) * element);
  // Per micro-batch, x read and written into the copy (one launch); once a call, the copy's
  // zeroing and the filter's copy in or out (two launches), each micro-batch priced with its share
  // (size / batch: exact for a plan of equal micro-batches).
  const double copied =
      samples * static_cast<double>(product_after_first(key.x.dims, channels) * element) + samples * padded_sample;
  const double share = samples / static_cast<double>(key.batch());
  const double zeroed = samples * padded_sample * share;
  const double filter = static_cast<double>(filter_elements(key, kPaddedInputChannels) * element) * 2.0;
  return (1.0 + 2.0 * share) * kCopyLaunchMs + (copied + zeroed + share * filter) / kCopyBytesPerMs;
}

double measured_copy_ms(const ConvKey& key, int size, const MeasuredCopies& measured) {
  const double samples = static_cast<double>(measured.size > 1 ? measured.size - 1 : 1);
  const double per_sample = std::max(0.0, (measured.size_ms - measured.one_sample_ms) / samples);
  const double fixed = std::max(0.0, measured.one_sample_ms - per_sample);
  const double share = static_cast<double>(size) / static_cast<double>(key.batch());
  return per_sample * size + fixed * (1.0 + 2.0 * share) / 3.0;
}

std::vector<Measurement> rows_from_padded_input(const ConvKey& key, const std::vector<Measurement>& padded_rows,
                                                const std::optional<MeasuredCopies>& measured) {
  const ConvKey padded = padded_input_key(key);
  // priced_for_split_sums adds the accumulator of the caller's gradient; the padded one is larger.
  const std::size_t larger_accumulator = fp32_sum_bytes(padded) - fp32_sum_bytes(key);
  std::vector<Measurement> rows;
  rows.reserve(padded_rows.size());
  for (const Measurement& row : padded_rows) {
    if (row.candidate.channel_pieces != 1) continue;  // pieces of a padded kernel are not planned
    Measurement whole = row;
    whole.candidate = row.candidate.with_padded_channels(kPaddedInputChannels);
    whole.workspace_bytes += padded_copy_bytes(key, row.micro_batch);
    if (row.micro_batch < key.batch()) whole.workspace_bytes += larger_accumulator;
    whole.time_ms +=
        measured ? measured_copy_ms(key, row.micro_batch, *measured) : padded_copy_ms(key, row.micro_batch);
    if (whole.host_ms > 0.0) {
      whole.host_ms += kPaddedCopyHostMs * (1.0 + 2.0 * row.micro_batch / static_cast<double>(key.batch()));
    }
    rows.push_back(whole);
  }
  return rows;
}

std::optional<MicroBatchSplit> optimize_wr_on_padded_input(const ConvKey& key, const std::vector<int>& sizes,
                                                           const std::vector<Measurement>& padded_rows,
                                                           std::size_t workspace_limit, CallPricing pricing) {
  std::set<int> largest_sizes;
  for (const Measurement& row : padded_rows) largest_sizes.insert(row.micro_batch);
  std::optional<MicroBatchSplit> best;
  for (int largest : largest_sizes) {
    const std::size_t buffer = padded_copy_bytes(key, largest);
    std::vector<Measurement> rows;
    for (const Measurement& row : padded_rows) {
      if (row.micro_batch > largest) continue;
      rows.push_back(row);
      rows.back().workspace_bytes += buffer - padded_copy_bytes(key, row.micro_batch);
    }
    auto wr = optimize_wr(key.batch(), sizes, rows, workspace_limit, pricing);
    if (wr) wr = prefer_undivided_within_margin(std::move(*wr), rows, workspace_limit, pricing);
    if (wr && (!best || wr->time_ms < best->time_ms)) best = std::move(wr);
  }
  return best;
}

}  // namespace ucudnn::optimize
