#pragma once
// Recorded benchmark tables in the CSV format of tests/data/README.md:
//   layer,op,microbatch,algo,math_type,time_ms,workspace_bytes,engine
// The engine column is optional (tables of version-1 tools have 7 columns) and empty for a legacy
// algorithm; an engine row names an engine configuration id (core/candidates.h; read in its
// canonical spelling) and has algo -1, a legacy row an algorithm of its op. Engine ids hold
// commas, so the engine column, the last, is the rest of the line, quoted or not ("eng1:k2=0,k3=1"
// as RFC 4180 writes it, which the writers do). The header line is optional, and so is a UTF-8
// byte-order mark at the start. One kernel per (layer, op), in order of first appearance; its
// mini-batch is the largest micro-batch listed for it. Refused, naming FILE:LINE: a NUL byte, a
// layer name that is not UTF-8, a micro-batch above kMaxMicroBatch, a time that is not a number
// from 0 to kMaxTimeMs, an engine id that parse_engine_config refuses, and a second row for the
// same (layer, op, microbatch, algo, math_type, engine), whose message names the line of the first.

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

/// The table as text, header first, always the 8 columns (engine empty for legacy rows): what
/// parse_measurements_csv reads back (times to 1 ns).
std::string format_measurements_csv(const std::vector<KernelMeasurements>& kernels);

/// The engine column as the writers put it: quoted where the id holds a comma (RFC 4180), so that
/// other CSV readers see eight columns; empty for a legacy row.
std::string csv_engine_field(const std::string& engine);

/// Opens and parses a file; a missing or unreadable file is an error that names it.
Expected<std::vector<KernelMeasurements>> read_measurements_csv(const std::string& path);

}  // namespace ucudnn
