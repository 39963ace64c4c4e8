#pragma once
// Recorded benchmark tables in the CSV format of tests/data/README.md:
//   layer,op,microbatch,algo,math_type,time_ms,workspace_bytes,engine,host_ms
// time_ms is the GPU's time per call, host_ms the host's time to issue one (0 or absent: not
// measured). The engine and host_ms columns are optional (tables of version-1 tools have 7
// columns, of version-2 tools 8); the engine is empty for a legacy algorithm; an engine row names
// an engine configuration id (core/candidates.h; read in its canonical spelling) and has algo -1,
// a legacy row an algorithm of its op. Engine ids hold commas: the writers quote such an id
// ("eng1:k2=0,k3=1", RFC 4180), and host_ms may follow a quoted id; an unquoted id with commas is
// the rest of the line (no host_ms), as earlier writers wrote it. The header line is optional,
// and so is a UTF-8 byte-order mark at the start. One kernel per (layer, op), in order of first appearance; its
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

/// The table as text, header first, always the 9 columns (engine empty for legacy rows): what
/// parse_measurements_csv reads back (times to 1 ns).
std::string format_measurements_csv(const std::vector<KernelMeasurements>& kernels);

/// The engine column as the writers put it: quoted where the id holds a comma (RFC 4180), so that
/// other CSV readers see each column where it is; empty for a legacy row.
std::string csv_engine_field(const std::string& engine);

/// Opens and parses a file; a missing or unreadable file is an error that names it.
Expected<std::vector<KernelMeasurements>> read_measurements_csv(const std::string& path);

}  // namespace ucudnn
