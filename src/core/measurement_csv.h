#pragma once
// Recorded benchmark tables in the CSV format of tests/data/README.md:
//   layer,op,microbatch,algo,math_type,time_ms,workspace_bytes
// The header line is optional, and so is a UTF-8 byte-order mark at the start. One kernel per
// (layer, op), in order of first appearance; its mini-batch is the largest micro-batch listed for
// it. Refused, naming FILE:LINE: a NUL byte, a layer name that is not UTF-8, a micro-batch above
// kMaxMicroBatch, a time that is not a number from 0 to kMaxTimeMs, and a second row for the same
// (layer, op, microbatch, algo, math_type), whose message names the line of the first.

#include <istream>
#include <string>
#include <vector>

#include "core/conv_op.h"
#include "core/expected.h"
#include "core/measurement.h"

namespace ucudnn {

/// The largest micro-batch (and so mini-batch) a table may list: far above any convolution's
/// batch in practice, and it bounds the planner's dynamic program (one entry per sample).
inline constexpr int kMaxMicroBatch = 65536;

/// The longest time a row may record, in milliseconds (about 11.6 days per call): sums of such
/// times over any table stay finite.
inline constexpr double kMaxTimeMs = 1e9;

struct KernelMeasurements {
  std::string layer;
  ConvOp op = ConvOp::kForward;
  int batch = 0;
  std::vector<Measurement> rows;
};

/// Parses the table; `source_name` prefixes error messages ("FILE:LINE: ...").
Expected<std::vector<KernelMeasurements>> parse_measurements_csv(std::istream& in,
                                                                 const std::string& source_name);

/// The table as text, header first: what parse_measurements_csv reads back (times to 1 ns).
std::string format_measurements_csv(const std::vector<KernelMeasurements>& kernels);

/// Opens and parses a file; a missing or unreadable file is an error that names it.
Expected<std::vector<KernelMeasurements>> read_measurements_csv(const std::string& path);

}  // namespace ucudnn
