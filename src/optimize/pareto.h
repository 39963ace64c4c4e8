#pragma once
// Desirable configurations (the paper's §III-C): for one kernel, every WR plan that no other plan
// beats in both time and workspace. These are the candidates the WD integer program chooses from.

#include <cstddef>
#include <vector>

#include "core/measurement.h"
#include "optimize/wr_optimizer.h"

namespace ucudnn::optimize {

/// What computing a front cost: the rows are sorted once, and the WR program is solved only where
/// a row makes its size faster than every row of that size with less workspace, so at most once
/// per row, whatever the workspace values.
struct FrontWork {
  std::size_t rows_used = 0;  ///< rows of an allowed size within the batch
  std::size_t wr_solves = 0;  ///< times the WR program was solved
};

/// The Pareto front of (time, workspace) over all ways to cover `batch` with micro-batches of
/// `allowed_sizes` measured in `rows` (each way: time = sum, workspace = max). Sorted by
/// workspace ascending, so time strictly descending. Empty when no way exists. `work`, if given,
/// receives what it cost.
std::vector<MicroBatchSplit> desirable_configurations(int batch, const std::vector<int>& allowed_sizes,
                                             const std::vector<Measurement>& rows, FrontWork* work = nullptr);

}  // namespace ucudnn::optimize
