#pragma once
// The process-wide table of benchmark results, shared by all handles.
//
// Key: the ConvKey of a micro-batch kernel (ConvKey::with_batch(s)), so that rows measured for one
// mini-batch serve any other with the same micro-batch, and the kind of candidate (legacy
// algorithms and graph-API engines are measured, and complete, separately). Value: every measured
// row of that kind (candidate, time, workspace), unfiltered, plus the workspace bound up to which
// candidates were measured: rows are complete for any limit up to that bound, and a larger limit
// measures the missing candidates. Thread-safe: every member may be called concurrently.

#include <cstddef>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/candidate_kinds.h"
#include "core/conv_key.h"
#include "core/measurement.h"

namespace ucudnn {

/// What the table knows of one micro-batch kernel's candidates of one kind. (Outside the class:
/// clang does not let an optional of a nested class with member initialisers be made inside it.)
struct BenchmarkEntry {
  std::vector<Measurement> rows;
  std::size_t measured_up_to = 0;  ///< candidates needing at most this much workspace were timed
};

class BenchmarkTable {
 public:
  using Entry = BenchmarkEntry;

  /// The rows of a micro-batch kernel if they are complete for `workspace_limit`.
  std::optional<std::vector<Measurement>> complete_rows(const ConvKey& micro_key, CandidateKind kind,
                                                        std::size_t workspace_limit) const;

  /// Whatever is known of a micro-batch kernel's candidates of one kind, complete or not.
  std::optional<Entry> entry(const ConvKey& micro_key, CandidateKind kind) const;

  /// Adds rows of `kind` (a row for an already known candidate replaces it) and raises that kind's
  /// bound to `measured_up_to`.
  void record(const ConvKey& micro_key, CandidateKind kind, std::size_t measured_up_to,
              const std::vector<Measurement>& rows);

  std::size_t size() const;
  void clear();


 private:
  struct Kinds {
    std::optional<Entry> by_kind[kCandidateKindCount];  ///< index: CandidateKind
  };
  mutable std::mutex mutex_;
  std::unordered_map<ConvKey, Kinds, ConvKeyHash> entries_;
};

}  // namespace ucudnn
