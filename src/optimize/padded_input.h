#pragma once
// The input padded with zero channels: a first layer (3 input channels, an image's colours) run
// as the same convolution with 4. cuDNN has kernels of their own for 4-channel inputs (NVIDIA's
// performance guide names them for NHWC first layers); on an H100 they ran ResNet's conv1 backward
// filter 6.3x faster within 8 MiB (bench/results/h100/ceiling/).
//
// The padded kernel is a convolution of its own, keyed completely (x packed with 4 channels in the
// caller's channel order, the filter with 4 input channels, y as the caller's): it is measured,
// stored and looked up as any kernel, with no new database fields. Its rows become rows of the
// whole kernel here, with the copies priced in: each micro-batch's x copied into the padded buffer
// (whose zero channels are set once per call), the filter copied with a zero channel (forward) or
// the filter gradient's real channels copied out (backward filter). The buffers lie at the start
// of the workspace, before the convolution's own. Zero channels add nothing to y or to the real
// channels' gradient, so the result is the caller's convolution, up to the order of additions.
//
// Forward and backward filter only: a first layer's backward data (the gradient of the images) is
// not what training computes. A plan pads all its micro-batches or none (runtime/plan_making.cpp).
// CUDA-free.

#include <cstddef>
#include <optional>
#include <vector>

#include "core/conv_key.h"
#include "core/measurement.h"
#include "core/search_mode.h"
#include "optimize/micro_batch_split.h"

namespace ucudnn::optimize {

/// The channel count a padded input gets.
inline constexpr int kPaddedInputChannels = 4;

/// Whether `key` may run on a padded input: forward or backward filter with one group, fewer input
/// channels than kPaddedInputChannels, 4-d or 5-d, in FP32, FP16 or BF16.
bool input_padding_allowed(const ConvKey& key);

/// Whether the search of `key` tries the padded input. Exhaustive: wherever allowed. Fast: where
/// allowed and tensor cores may run it (FP16, BF16, or FP32 without FMA math): the 4-channel
/// kernels are tensor-core kernels.
bool input_padding_to_search(const ConvKey& key, SearchMode search);

/// The padded kernel of `key` (input_padding_allowed): x packed with kPaddedInputChannels channels
/// in the order of the filter's format (NHWC: channels last), the filter with as many.
ConvKey padded_input_key(const ConvKey& key);

/// Packed strides of `dims` (N first, then the channels), channels last where `channels_last`.
std::vector<int> packed_strides(const std::vector<int>& dims, bool channels_last);

/// The workspace the padded copies take in front of the convolution's at a micro-batch of `size`:
/// x's copy, and the filter's (forward) or the filter gradient's (backward filter), each a
/// multiple of 256 bytes so that what follows stays aligned.
std::size_t padded_copy_bytes(const ConvKey& key, int size);
/// Of which the filter's copy, after x's copy of `size` samples.
std::size_t padded_filter_bytes(const ConvKey& key);

/// One call's copies timed on the GPU at a micro-batch of one sample and of `size` samples
/// (MeasurementSource::time_padded_copies): what replaces the model's price where a GPU is there.
/// On an H100, cuDNN's strided copy of a 3-channel NHWC FP16 x into 4 channels ran far below the
/// memory's bandwidth, which the model had assumed (bench/results/h100/ceiling/).
struct MeasuredCopies {
  int size = 0;
  double one_sample_ms = 0.0;
  double size_ms = 0.0;
};

/// Rows of the whole kernel from rows of its padded kernel: the candidate marked padded, the
/// copies' workspace and time added (and, for a half-precision backward filter below the batch,
/// the larger FP32 accumulator of the padded gradient). The copies' time is `measured`'s where
/// given, else the model's (padded_copy_ms).
std::vector<Measurement> rows_from_padded_input(const ConvKey& key, const std::vector<Measurement>& padded_rows,
                                                const std::optional<MeasuredCopies>& measured = std::nullopt);

/// The copies' GPU milliseconds for one micro-batch of `size` from a measurement: the micro-batch's
/// own copy (the measured time per sample, and one launch of the three a call makes) and its share
/// (size / batch) of the call's other two.
double measured_copy_ms(const ConvKey& key, int size, const MeasuredCopies& measured);

/// The WR split of `key` over rows of its padded input only (rows_from_padded_input, priced as the
/// plan runs them), or nothing where none fits. The copy of x holds the largest micro-batch a plan
/// runs, so each largest size M is solved apart, every row of M or less priced with the copy of
/// M; the fastest wins.
std::optional<MicroBatchSplit> optimize_wr_on_padded_input(const ConvKey& key, const std::vector<int>& sizes,
                                                           const std::vector<Measurement>& padded_rows,
                                                           std::size_t workspace_limit, CallPricing pricing);

/// GPU milliseconds of the copies for one micro-batch of `size`: its x copied, and its share of
/// the call's zeroing and filter copy.
double padded_copy_ms(const ConvKey& key, int size);
/// Host milliseconds of one copy call: each micro-batch makes one, each call two more.
inline constexpr double kPaddedCopyHostMs = 0.005;

}  // namespace ucudnn::optimize
