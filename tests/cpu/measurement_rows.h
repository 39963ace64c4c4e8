#pragma once
// Benchmark rows for the CPU tests: one row as the benchmarker records it, and random tables for
// the optimisers' brute-force comparisons.

#include <cstddef>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/measurement.h"

namespace ucudnn::testing {

/// A legacy algorithm's row.
inline Measurement legacy_row(int micro_batch, int algo, double time_ms, std::size_t workspace = 0) {
  Measurement m;
  m.micro_batch = micro_batch;
  m.candidate.algorithm = algo;
  m.time_ms = time_ms;
  m.workspace_bytes = workspace;
  return m;
}

/// A graph-API engine's row (algorithm -1).
inline Measurement engine_row(int micro_batch, const std::string& id, double time_ms, std::size_t workspace = 0) {
  Measurement m = legacy_row(micro_batch, -1, time_ms, workspace);
  m.candidate = Candidate::engine(id, 0);
  return m;
}

/// A uniform integer from lo to hi.
inline int uniform(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

/// About 60% of the sizes 1 to batch + 1 (batch + 1, past the batch, must be ignored).
inline std::vector<int> random_allowed_sizes(std::mt19937& rng, int batch) {
  std::vector<int> allowed;
  for (int size = 1; size <= batch + 1; ++size) {
    if (uniform(rng, 0, 9) < 6) allowed.push_back(size);
  }
  return allowed;
}

/// Rows for about 60% of the sizes 1 to batch + `past_batch`, one to three each, of legacy
/// algorithms 0-7 at whole quarter milliseconds up to `max_quarters` (sums add up exactly, so equal
/// times really tie), a third of them with a host time too (longer or shorter than the GPU's);
/// `workspace` draws each row's workspace.
inline std::vector<Measurement> random_rows(std::mt19937& rng, int batch, int past_batch, int max_quarters,
                                            const std::function<std::size_t(std::mt19937&)>& workspace) {
  std::vector<Measurement> rows;
  for (int size = 1; size <= batch + past_batch; ++size) {
    if (uniform(rng, 0, 9) < 4) continue;  // sizes without measurements
    for (int n = uniform(rng, 1, 3); n > 0; --n) {
      const std::size_t bytes = workspace(rng);
      const int algo = uniform(rng, 0, 7);
      rows.push_back(legacy_row(size, algo, 0.25 * uniform(rng, 1, max_quarters), bytes));
      if (uniform(rng, 0, 2) == 0) rows.back().host_ms = 0.25 * uniform(rng, 1, max_quarters);
    }
  }
  return rows;
}

}  // namespace ucudnn::testing
