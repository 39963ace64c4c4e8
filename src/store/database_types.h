#pragma once
// The values the benchmark database stores and answers with, and its schema versions.

#include <cstddef>
#include <string>
#include <vector>

#include "core/conv_op.h"
#include "core/device_identity.h"
#include "core/measurement.h"

namespace ucudnn::store {

inline constexpr int kSchemaVersion = 3;
/// The oldest version this build reads (read-only) and upgrades (writable).
inline constexpr int kOldestSchemaVersion = 1;

/// One stored row, with everything that identifies it.
struct StoredRow {
  DeviceIdentity identity;
  ConvOp op = ConvOp::kForward;
  std::string layer;  ///< ConvKey::layer_signature()
  Measurement measurement;
  std::string measured_at;  ///< UTC, ISO 8601
};

/// The rows of one kind of candidate of one micro-batch kernel, and that kind's coverage bound.
struct KernelLookup {
  std::vector<Measurement> rows;
  std::size_t measured_up_to = 0;
};

/// What BenchmarkDatabase::merge_from did.
struct MergeCounts {
  long long rows_added = 0;       ///< rows the target did not have
  long long rows_present = 0;     ///< rows it already had (kept as they were)
  long long coverage_raised = 0;  ///< coverage bounds raised, or added where it had none
};

/// What BenchmarkDatabase::verify read of a file it found nothing wrong with.
struct Verification {
  int schema_version = 0;
  long long rows = 0;             ///< measurement rows, each read as a lookup reads it
  long long coverage_bounds = 0;  ///< coverage rows, likewise
};

struct DatabaseStats {
  long long rows = 0;
  long long engine_rows = 0;  ///< of `rows`, those of engine configurations
  long long kernels = 0;  ///< distinct (op, layer) pairs
  std::vector<std::string> gpus;
  std::vector<int> cudnn_versions;
};

}  // namespace ucudnn::store
