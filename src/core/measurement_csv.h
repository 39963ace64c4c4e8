#pragma once
// Recorded benchmark tables in the CSV format of tests/data/README.md:
//   layer,op,microbatch,algo,math_type,time_ms,workspace_bytes
// The header line is optional. One kernel per (layer, op), in order of first appearance; its
// mini-batch is the largest micro-batch listed for it.

#include <istream>
#include <string>
#include <vector>

#include "core/conv_op.h"
#include "core/expected.h"
#include "core/measurement.h"

namespace ucudnn {

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
