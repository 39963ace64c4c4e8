#pragma once
// Desirable configurations (the paper's §III-C): for one kernel, every WR plan that no other plan
// beats in both time and workspace. These are the candidates the WD integer program chooses from.

#include <cstddef>
#include <vector>

#include "core/measurement.h"
#include "optimize/wr_optimizer.h"

namespace ucudnn {

/// The Pareto front of (time, workspace) over all ways to cover `batch` with micro-batches of
/// `allowed_sizes` measured in `rows` (each way: time = sum, workspace = max). Sorted by
/// workspace ascending, so time strictly descending. Empty when no way exists.
std::vector<WrPlan> desirable_configurations(int batch, const std::vector<int>& allowed_sizes,
                                             const std::vector<Measurement>& rows);

}  // namespace ucudnn
