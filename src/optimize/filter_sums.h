#pragma once
// Backward filter split across the batch with a half-precision filter gradient (FP16, BF16).
//
// Adding micro-batches' partial gradients in the filter's own type (beta = 1) loses most digits
// where the partials cancel, as batch normalisation makes them. Instead each micro-batch's partial
// is kept in FP32, in an accumulator at the start of the workspace: the micro-batch is convolved
// twice, once into the filter gradient (beta = 0: H, the partial rounded to half) and once more with
// beta = -1 (R = the partial minus H, rounded: what H's rounding lost), and H and R are each added
// to the accumulator. H + R holds the partial to about the square of half's precision, so the sum
// is as exact as one undivided call, whose only rounding is the last: the accumulator (with the
// caller's beta times the filter gradient, added first) converted to the filter's type once.
//
// The planner prices such a split from the kernel's own rows at each micro-batch size: two
// convolutions and two additions per micro-batch, plus the accumulator's workspace; an undivided
// call needs none of it. A pure function over rows: no CUDA.

#include <cstddef>
#include <vector>

#include "core/conv_key.h"
#include "core/measurement.h"

namespace ucudnn::optimize {

/// Whether a split of `key` sums its micro-batches in FP32: backward filter with an FP16 or BF16
/// filter gradient.
bool sums_in_fp32(const ConvKey& key);

/// The workspace the FP32 accumulator takes at the start of the workspace (a multiple of 256
/// bytes, so the convolutions' workspace after it stays aligned); 0 where sums_in_fp32 is false.
std::size_t fp32_sum_bytes(const ConvKey& key);

/// GPU and host milliseconds of one addition into the accumulator (or its conversion back): an
/// elementwise pass over the filter gradient, priced as a launch plus its bytes at a bandwidth
/// well below the GPU's peak (an H200 measured 4.3 us up to 590 K elements, 6.2 us at 2.4 M; its
/// host 4 to 4.3 us a call).
double fp32_sum_pass_ms(const ConvKey& key);
inline constexpr double kFp32SumPassHostMs = 0.006;

/// `rows` priced as the micro-batches of a split of `key` where sums_in_fp32(key): a row below the
/// whole batch costs two convolutions and three passes (its two additions, and a share no smaller
/// than the final conversion) and needs the accumulator besides its own workspace; a row of the
/// whole batch runs undivided, as measured. Other kernels' rows are returned as they are.
std::vector<Measurement> priced_for_split_sums(const ConvKey& key, std::vector<Measurement> rows);

}  // namespace ucudnn::optimize
