#pragma once
// The fast search's order over micro-batch sizes (core/search_mode.h): the whole batch first,
// then smaller sizes only while a smaller micro-batch could still improve the plan. Pure functions
// over rows, CPU-tested against the exhaustive search on recorded tables.
//
// The bound assumes what holds for convolutions on GPUs: the best time per sample of a size, over
// every candidate whatever its workspace, does not fall as micro-batches shrink (smaller
// micro-batches fill the GPU less, and a host-issued call costs at least the host's time). Then
// no plan that uses micro-batches smaller than the smallest size measured, s, costs less than
// batch x best(s) / s, and once the best plan over the measured sizes is within `margin` of that,
// measuring smaller sizes cannot improve it by more than `margin`.

#include <cstddef>
#include <vector>

#include "core/batch_policy.h"
#include "core/measurement.h"

namespace ucudnn::optimize {

/// The sizes of `sizes` (the policy's, for `batch`) in the order the fast search measures them:
/// the largest first; for the `all` policy only a halving ladder (batch, ceil(batch / 2), ...),
/// the other policies' sizes being a ladder already.
std::vector<int> search_ladder(const std::vector<int>& sizes, BatchSizePolicy policy);

/// The ladder of a batch size new to a kernel already measured at other batch sizes: the powers of
/// two of `sizes` at or below `batch`, largest first. Powers of two are the sizes every batch size
/// shares (33 = 32 + 1), so rows measured for one batch plan the next, and an inference server's
/// batch sizes 1..256 measure nine sizes in all; the batch itself is measured only where it is one.
std::vector<int> shared_size_ladder(const std::vector<int>& sizes, int batch);

/// Whether sizes smaller than the smallest of `measured_sizes` could improve, by more than
/// `margin`, the best plan of `batch` within `workspace_limit` over `rows` of the measured sizes,
/// under `pricing`. True where that plan does not exist yet or the smallest size has no rows.
bool smaller_sizes_may_help(int batch, const std::vector<int>& measured_sizes, const std::vector<Measurement>& rows,
                            std::size_t workspace_limit, CallPricing pricing, double margin);

/// How close the fast search's plans stay to the exhaustive search's: the margin the bound uses.
inline constexpr double kSearchMargin = 0.02;

}  // namespace ucudnn::optimize
