#pragma once
// Recorded benchmark tables in the CSV format of tests/data/README.md:
//   layer,op,microbatch,algo,math_type,time_ms,workspace_bytes,engine,host_ms
// time_ms is the GPU's time per call, host_ms the host's time to issue one (0 or absent: not
// measured). The engine and host_ms columns are optional (tables of version-1 tools have 7
// columns, of version-2 tools 8); the engine is empty for a legacy algorithm; an engine row names
// an engine configuration id (core/engine_config.h; read in its canonical spelling) and has algo -1,
// a legacy row an algorithm of its op. Engine ids hold commas: the writers quote such an id
// ("eng1:k2=0,k3=1", RFC 4180), and host_ms may follow a quoted id; an unquoted id with commas is
// the rest of the line (no host_ms), as earlier writers wrote it. The header line is optional,
// and so is a UTF-8 byte-order mark at the start. One kernel per (layer, op), in order of first appearance; its
// mini-batch is the largest micro-batch listed for it. Refused, naming FILE:LINE: a NUL byte, a
// layer name that is not UTF-8, a micro-batch above kMaxMicroBatch, a time that is not a number
// from 0 to kMaxTimeMs, an engine id that parse_engine_config refuses, and a second row for the
// same (layer, op, microbatch, algo, math_type, engine), whose message names the line of the first.
// Bounded (docs/limits.md): a line longer than kMaxTableLineBytes is refused after reading that
// many bytes of it, a layer name longer than kMaxLayerNameBytes is refused.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <istream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/conv_op.h"
#include "core/expected.h"
#include "core/measurement.h"
#include "core/row_rules.h"

namespace ucudnn {

/// The longest line a table may have, in bytes (its line break not counted): some sixty times the
/// longest real row (a 1 KiB name, an engine id of a few dozen knobs and seven numbers), and small
/// enough that a reader holds one line at no cost.
inline constexpr std::size_t kMaxTableLineBytes = 64 * 1024;

/// The longest layer name a table (or a network file, whose names tables use) may hold, in bytes:
/// far above framework names (module paths, scopes) and the layer signatures `db export` writes
/// for names (at most about 450 bytes for a 3-d convolution).
inline constexpr std::size_t kMaxLayerNameBytes = 1024;

struct KernelMeasurements {
  std::string layer;
  ConvOp op = ConvOp::kForward;
  int batch = 0;
  std::vector<Measurement> rows;
};

/// One row of a table as TableRules hands it over.
struct TableRow {
  int line = 0;            ///< its line in the table (1 for the first)
  std::size_t kernel = 0;  ///< its (layer, op): 0 for the first the table names, 1 for the next, ...
  ConvOp op = ConvOp::kForward;
  Measurement measurement;
};

/// What TableRules remembers of the rows, for the duplicate check.
enum class RowMemory {
  kEveryKernel,   ///< every row's key (some 40 bytes a row)
  kLatestKernel,  ///< the keys of the latest row's kernel only: a kernel's are forgotten when
                  ///< another kernel's rows begin, and a later row of it is refused (came_back)
};

/// The rules of the format applied a line at a time: what parse_measurements_csv, `db import`
/// (which stores rows as it reads them) and `db export` (which checks each line it writes) share.
/// Keeps each kernel's name, and the row keys that `memory` says.
class TableRules {
 public:
  TableRules(std::string source_name, RowMemory memory) : source_name_(std::move(source_name)), memory_(memory) {}

  /// Checks the next line (without its line break; at most kMaxTableLineBytes, which LineReader
  /// ensures for a reader, here refused too): its row, or null for a blank line or the header.
  /// Errors name SOURCE:LINE. The row stays valid until the next call.
  Expected<const TableRow*> check_line(const std::string& line);

  /// Whether check_line refused its line for a kernel whose rows were forgotten: the table's
  /// kernels do not each come in one run of lines (RowMemory::kLatestKernel).
  bool came_back() const { return came_back_; }

  /// The name and op of a kernel of a row (TableRow::kernel).
  const std::string& layer(std::size_t kernel) const { return kernels_[kernel].layer; }
  ConvOp op(std::size_t kernel) const { return kernels_[kernel].op; }
  std::size_t kernel_count() const { return kernels_.size(); }

 private:
  struct Kernel {
    std::string layer;
    ConvOp op;
    std::unordered_map<std::uint64_t, int> rows;  ///< packed row key -> line of the row
    bool forgotten = false;
  };
  Status check_kernel(const std::string& where);
  Status check_duplicate(const std::string& where);

  std::string source_name_;
  RowMemory memory_;
  int line_number_ = 0;
  std::vector<Kernel> kernels_;
  std::unordered_map<std::string, std::size_t> kernel_index_;  ///< op's short name + ',' + layer
  std::unordered_map<std::string, std::uint32_t> engines_;     ///< each engine id's number ('' is 0)
  bool any_row_ = false;
  bool came_back_ = false;
  TableRow row_;
};

/// What read_measurement_rows hands each row to (with the rules, which name its kernel).
using TableRowVisit = std::function<Status(const TableRules&, const TableRow&)>;

/// Reads a table a line at a time (LineReader: lines of at most kMaxTableLineBytes), checks each
/// as TableRules does and hands each row to `visit`; an error of `visit` stops the reading and is
/// returned. A table without rows is an error. Memory: one line and the rules' bookkeeping, every
/// row's key.
Status read_measurement_rows(std::istream& in, const std::string& source_name, const TableRowVisit& visit);
/// The same for a file, keeping one kernel's row keys where each kernel's rows come together (as
/// `bench` and `db export` write them): where they do not, the lines read so far are read and
/// checked again, keeping every kernel's (rows are handed to `visit` once). A missing or unreadable
/// file is an error that names it; so is a file whose first bytes say it is no text (an SQLite
/// database, an archive: core/input_file.h's binary_file_kind), which names what it is.
Status read_measurement_rows(const std::string& path, const TableRowVisit& visit);

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
