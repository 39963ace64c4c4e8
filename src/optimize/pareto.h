#pragma once
// Desirable configurations (the paper's §III-C): for one kernel, every WR plan that no other plan
// beats in both time and workspace. These are the candidates the WD integer program chooses from.

#include <chrono>
#include <cstddef>
#include <optional>
#include <vector>

#include "core/expected.h"
#include "core/measurement.h"
#include "optimize/wr_optimizer.h"

namespace ucudnn::optimize {

/// What computing a front cost: the rows are sorted once, and the WR program is solved only where
/// a row makes its size faster than every row of that size with less workspace, so at most once
/// per row, whatever the workspace values.
struct FrontWork {
  std::size_t rows_used = 0;  ///< rows of an allowed size within the batch
  std::size_t wr_solves = 0;  ///< times the WR program was solved
  bool past_deadline = false;  ///< stopped at the deadline: the front is empty, not computed
};

/// The Pareto front of (time, workspace) over all ways to cover `batch` with micro-batches of
/// `allowed_sizes` measured in `rows` (each way: time = sum, workspace = max). Sorted by
/// workspace ascending, so time strictly descending. Empty when no way exists. `work`, if given,
/// receives what it cost. Past `deadline` it stops, empty, with work->past_deadline: a table with
/// workspaces of their own at many sizes costs a solve per size (cubic in the sizes).
std::vector<MicroBatchSplit> desirable_configurations(
    int batch, const std::vector<int>& allowed_sizes, const std::vector<Measurement>& rows,
    FrontWork* work = nullptr, std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

/// The error where desirable_configurations stopped at a deadline of `limit_seconds` (the WD
/// time limit): it names the limit and what to change.
Error front_past_time_limit(double limit_seconds);

}  // namespace ucudnn::optimize
