#include "core/measurement_csv.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <utility>

#include "core/candidate_kinds.h"
#include "core/engine_config.h"
#include "core/input_file.h"
#include "core/line_reader.h"
#include "core/message_text.h"
#include "core/utf8.h"

namespace ucudnn {
namespace {

// The engine and host_ms columns may be left out: tables written before engines have seven
// columns, tables written before host times eight.
constexpr int kColumns = 9;
constexpr int kRequiredColumns = 7;
constexpr int kEngineColumn = 7;
const char* const kColumnNames[kColumns] = {"layer",     "op",      "microbatch",      "algo",   "math_type",
                                            "time_ms",   "workspace_bytes", "engine", "host_ms"};

std::string trimmed(const std::string& field) {
  const auto first = field.find_first_not_of(" \t");
  const auto last = field.find_last_not_of(" \t\r");
  return first == std::string::npos ? "" : field.substr(first, last - first + 1);
}

// The fields of a line, blanks trimmed. Engine ids hold commas between their knobs, so the engine
// column is either quoted (RFC 4180, as the writers put it), and then host_ms may follow, or
// unquoted: empty or without commas, and then host_ms may follow; else the engine id is the rest
// of the line (the eight-column tables of earlier writers).
std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (static_cast<int>(fields.size()) < kEngineColumn) {
    const auto comma = line.find(',', start);
    if (comma == std::string::npos) break;
    fields.push_back(trimmed(line.substr(start, comma - start)));
    start = comma + 1;
  }
  std::string rest = trimmed(line.substr(start));
  if (static_cast<int>(fields.size()) < kEngineColumn) {
    fields.push_back(std::move(rest));
    return fields;
  }
  if (!rest.empty() && rest.front() == '"') {
    const auto close = rest.find('"', 1);
    const auto after = close == std::string::npos ? std::string::npos : rest.find_first_not_of(" \t", close + 1);
    if (close != std::string::npos && (after == std::string::npos || rest[after] == ',')) {
      fields.push_back(rest.substr(1, close - 1));
      if (after != std::string::npos) fields.push_back(trimmed(rest.substr(after + 1)));
      return fields;
    }
    fields.push_back(std::move(rest));  // not a quoted field: parse_engine_config says why
    return fields;
  }
  const auto comma = rest.find(',');
  if (comma != std::string::npos && (comma == 0 || rest.find(',', comma + 1) == std::string::npos) &&
      rest.find('=', comma) == std::string::npos) {
    fields.push_back(trimmed(rest.substr(0, comma)));
    fields.push_back(trimmed(rest.substr(comma + 1)));
    return fields;
  }
  fields.push_back(std::move(rest));
  return fields;
}

// Whole decimal numbers only: no sign, no spaces, and every byte of the field read.
bool parse_integer(const std::string& text, long long min_value, long long max_value, long long* out) {
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < min_value || value > max_value) {
    return false;
  }
  *out = value;
  return true;
}

// A decimal time in milliseconds from 0 to kMaxTimeMs; "-0" is 0, never negative zero.
bool parse_time(const std::string& text, double* out) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value < 0 ||
      value > kMaxTimeMs) {
    return false;
  }
  *out = value + 0.0;  // -0.0 + 0.0 is +0.0
  return true;
}

// One row's fields once checked; the layer and op are kept by the kernel.
struct Row {
  ConvOp op = ConvOp::kForward;
  Measurement measurement;
};

// The engine column, where the row has one: empty (a legacy algorithm) or a valid engine id,
// kept in its canonical spelling so that one configuration is one key.
Expected<std::string> parse_engine_field(const std::vector<std::string>& fields) {
  if (fields.size() <= 7 || fields[7].empty()) return std::string();
  const auto config = parse_engine_config(fields[7]);
  if (!config) return Error::invalid("invalid engine: " + config.message());
  return format_engine_config(*config);
}

Expected<Row> parse_row(const std::vector<std::string>& fields) {
  if (fields[0].empty()) return Error::invalid("empty layer name");
  if (fields[0].size() > kMaxLayerNameBytes) {
    return Error::invalid("layer name of " + std::to_string(fields[0].size()) + " bytes is longer than the limit of " +
                          std::to_string(kMaxLayerNameBytes) + " bytes");
  }
  if (!is_valid_utf8(fields[0])) return Error::invalid("layer name is not valid UTF-8");
  const auto op = parse_conv_op(fields[1]);
  if (!op) return Error::invalid("unknown op '" + excerpt(fields[1]) + "' (expected fwd, bwdd or bwdf)");
  UCUDNN_TRY_ASSIGN(std::string engine, parse_engine_field(fields));

  long long microbatch = 0, algo = 0, math_type = 0, workspace = 0;
  double time_ms = 0, host_ms = 0;
  const bool has_host = fields.size() > 8;
  const long long max_workspace = std::numeric_limits<long long>::max();
  // The row's kind (told by its engine column) says what its algo column may be.
  const CandidateKindInfo& kind = kind_info(kind_of_candidate(engine));
  const bool algo_ok = parse_integer(fields[3], std::numeric_limits<long long>::min(),
                                     std::numeric_limits<long long>::max(), &algo) &&
                       kind.algo_allowed(*op, algo);
  const std::string algo_expected = kind.expected_algo(*op);
  const struct {
    int column;
    bool ok;
    std::string expected;
  } checks[] = {
      {2, parse_integer(fields[2], 1, kMaxMicroBatch, &microbatch),
       "an integer from 1 to at most " + std::to_string(kMaxMicroBatch)},
      {3, algo_ok, algo_expected},
      {4, parse_integer(fields[4], 0, max_math_type(), &math_type),
       "an integer from 0 to " + std::to_string(max_math_type())},
      {5, parse_time(fields[5], &time_ms), "milliseconds from 0 to at most 1e9"},
      {6, parse_integer(fields[6], 0, max_workspace, &workspace), "a whole number of bytes"},
      {8, !has_host || parse_time(fields[8], &host_ms), "milliseconds from 0 to at most 1e9"},
  };
  for (const auto& check : checks) {
    if (!check.ok) {
      return Error::invalid("invalid " + std::string(kColumnNames[check.column]) + " '" +
                            excerpt(fields[check.column]) + "' (expected " + check.expected + ")");
    }
  }
  Row row;
  row.op = *op;
  row.measurement.candidate =
      candidate_from_columns(static_cast<int>(algo), static_cast<int>(math_type), std::move(engine));
  row.measurement.micro_batch = static_cast<int>(microbatch);
  row.measurement.time_ms = time_ms;
  row.measurement.workspace_bytes = static_cast<std::size_t>(workspace);
  row.measurement.host_ms = host_ms;
  // The fields' checks above name their column; this is the rule every reader of rows shares.
  UCUDNN_TRY(check_measurement(row.op, row.measurement));
  return row;
}

// A row's key within its kernel, packed into 64 bits: micro-batch (17 bits, up to kMaxMicroBatch),
// math type (4), algo + 1 (11: every kind's algo column is -1 or an algorithm below algo_count)
// and the number of its engine id among the table's (32).
std::uint64_t packed_key(const Measurement& m, std::uint32_t engine) {
  const auto algo = static_cast<std::uint64_t>(m.candidate.algorithm + 1) & 0x7FF;
  return (((std::uint64_t{engine} << 11 | algo) << 4 | static_cast<std::uint64_t>(m.candidate.math_type)) << 17) |
         static_cast<std::uint64_t>(m.micro_batch);
}

std::string describe(const std::string& layer, ConvOp op, const Measurement& m) {
  return excerpt(layer) + " " + short_name(op) + " micro-batch " + std::to_string(m.micro_batch) + " algo " +
         std::to_string(m.candidate.algorithm) + " math_type " + std::to_string(m.candidate.math_type) +
         (m.candidate.engine_id.empty() ? "" : " engine " + m.candidate.engine_id);
}

constexpr char kByteOrderMark[] = "\xEF\xBB\xBF";

// A visitor of read_measurement_rows that gathers the rows by kernel, in order of first appearance.
TableRowVisit gathered_into(std::vector<KernelMeasurements>* kernels) {
  return [kernels](const TableRules& rules, const TableRow& row) -> Status {
    if (row.kernel == kernels->size()) kernels->push_back(KernelMeasurements{rules.layer(row.kernel), row.op, 0, {}});
    KernelMeasurements& kernel = (*kernels)[row.kernel];
    kernel.rows.push_back(row.measurement);
    kernel.batch = std::max(kernel.batch, row.measurement.micro_batch);
    return Status::success();
  };
}

}  // namespace

Expected<const TableRow*> TableRules::check_line(const std::string& text) {
  ++line_number_;
  const std::string where = source_name_ + ":" + std::to_string(line_number_) + ": ";
  if (text.size() > kMaxTableLineBytes) {
    return Error::invalid(where + "line longer than " + std::to_string(kMaxTableLineBytes) +
                          " bytes (the limit of a line)");
  }
  // A spreadsheet writes a byte-order mark first.
  const std::size_t skip = line_number_ == 1 && text.rfind(kByteOrderMark, 0) == 0 ? 3 : 0;
  const std::string line = text.substr(skip);
  // C string functions would end a field at a NUL byte.
  if (line.find('\0') != std::string::npos) return Error::invalid(where + "NUL byte in the line");
  if (line.find_first_not_of(" \t\r") == std::string::npos) return nullptr;
  const auto fields = split_fields(line);
  if (line_number_ == 1 && !fields.empty() && fields[0] == "layer") return nullptr;  // header
  if (static_cast<int>(fields.size()) < kRequiredColumns) {
    return Error::invalid(where + "expected 7 to 9 comma-separated fields (" +
                          "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes[,engine[,host_ms]]), got " +
                          std::to_string(fields.size()));
  }
  auto row = parse_row(fields);
  if (!row) return row.error().prefixed(where);

  auto [found, added] = kernel_index_.try_emplace(short_name(row->op) + ("," + fields[0]), kernels_.size());
  if (added) kernels_.push_back(Kernel{fields[0], row->op, {}, false});
  const std::size_t previous = row_.kernel;
  row_.line = line_number_;
  row_.kernel = found->second;
  row_.op = row->op;
  row_.measurement = std::move(row->measurement);
  if (memory_ == RowMemory::kLatestKernel && any_row_ && previous != row_.kernel) {
    Kernel& finished = kernels_[previous];
    std::unordered_map<std::uint64_t, int>().swap(finished.rows);
    finished.forgotten = true;
  }
  any_row_ = true;
  UCUDNN_TRY(check_kernel(where));
  UCUDNN_TRY(check_duplicate(where));
  return &row_;
}

Status TableRules::check_kernel(const std::string& where) {
  const Kernel& kernel = kernels_[row_.kernel];
  if (!kernel.forgotten) return Status::success();
  came_back_ = true;
  return Error::invalid(where + "a row of " + excerpt(kernel.layer) + " " + short_name(kernel.op) +
                        " after rows of other layers (here each layer's rows come together)");
}

Status TableRules::check_duplicate(const std::string& where) {
  const Measurement& m = row_.measurement;
  const auto engine =
      engines_.try_emplace(m.candidate.engine_id, static_cast<std::uint32_t>(engines_.size())).first->second;
  Kernel& kernel = kernels_[row_.kernel];
  const auto [first, inserted] = kernel.rows.emplace(packed_key(m, engine), row_.line);
  if (inserted) return Status::success();
  return Error::invalid(where + "duplicate row for " + describe(kernel.layer, kernel.op, m) + " (first at line " +
                        std::to_string(first->second) + ")");
}

namespace {

// Where a kernel's rows came back at line `reached` after others' (and were forgotten): reads `in`
// again from its start and checks the lines before `reached` again into `rules`, now keeping every
// kernel's row keys; `line` is then line `reached` again.
Status reread_keeping_every_kernel(std::istream& in, const std::string& source_name, int reached,
                                   std::optional<LineReader>* lines, TableRules* rules, std::string* line) {
  in.clear();
  if (!in.seekg(0)) return Error::storage(source_name + ": cannot read it again from its start");
  lines->emplace(in, source_name, kMaxTableLineBytes);
  TableRules every_kernel(source_name, RowMemory::kEveryKernel);
  bool more = true;
  for (int n = 1; more && n < reached; ++n) {
    UCUDNN_TRY_ASSIGN(more, (*lines)->next(line));
    if (more) UCUDNN_TRY(every_kernel.check_line(*line));
  }
  // Rows were handed over by kernel number: the same lines must name the same kernels.
  bool same = more && every_kernel.kernel_count() == rules->kernel_count();
  for (std::size_t k = 0; same && k < rules->kernel_count(); ++k) {
    same = every_kernel.layer(k) == rules->layer(k) && every_kernel.op(k) == rules->op(k);
  }
  if (same) {
    UCUDNN_TRY_ASSIGN(same, (*lines)->next(line));
  }
  if (!same) return Error::invalid(source_name + ": changed while it was read");
  *rules = std::move(every_kernel);
  return Status::success();
}

// Reads `in` from its start. Where `in` can be read again from its start (a file), the rules keep
// one kernel's row keys, and read the table again keeping every kernel's only where a kernel's
// rows come back after another's (at most once).
Status read_rows(std::istream& in, const std::string& source_name, bool can_rewind, const TableRowVisit& visit) {
  std::optional<LineReader> lines(std::in_place, in, source_name, kMaxTableLineBytes);
  TableRules rules(source_name, can_rewind ? RowMemory::kLatestKernel : RowMemory::kEveryKernel);
  std::string line;
  bool any = false;
  while (true) {
    UCUDNN_TRY_ASSIGN(const bool more, lines->next(&line));
    if (!more) break;
    auto row = rules.check_line(line);
    if (!row && rules.came_back()) {
      UCUDNN_TRY(reread_keeping_every_kernel(in, source_name, lines->line_number(), &lines, &rules, &line));
      row = rules.check_line(line);
    }
    UCUDNN_TRY(row);
    if (*row == nullptr) continue;
    any = true;
    UCUDNN_TRY(visit(rules, **row));
  }
  if (!any) return Error::invalid(source_name + ": no measurement rows");
  return Status::success();
}

}  // namespace

Status read_measurement_rows(std::istream& in, const std::string& source_name, const TableRowVisit& visit) {
  return read_rows(in, source_name, false, visit);
}

Status read_measurement_rows(const std::string& path, const TableRowVisit& visit) {
  UCUDNN_TRY(check_input_file(path, "measurements file"));
  // A database or an archive would otherwise be refused for its first odd byte, as a damaged table.
  if (const std::string kind = binary_file_kind(path); !kind.empty()) {
    return Error::invalid("measurements file '" + path + "' is " + kind +
                          ", not a benchmark table (CSV text, the format of tests/data/README.md)");
  }
  std::ifstream in(path);
  if (!in) return Error::invalid("cannot open measurements file '" + path + "': " + std::strerror(errno));
  return read_rows(in, path, true, visit);
}

Expected<std::vector<KernelMeasurements>> parse_measurements_csv(std::istream& in,
                                                                 const std::string& source_name) {
  std::vector<KernelMeasurements> kernels;
  UCUDNN_TRY(read_measurement_rows(in, source_name, gathered_into(&kernels)));
  return kernels;
}

Expected<std::vector<KernelMeasurements>> read_measurements_csv(const std::string& path) {
  std::vector<KernelMeasurements> kernels;
  UCUDNN_TRY(read_measurement_rows(path, gathered_into(&kernels)));
  return kernels;
}

std::string csv_engine_field(const std::string& engine) {
  return engine.find(',') == std::string::npos ? engine : "\"" + engine + "\"";
}

std::string format_measurements_csv(const std::vector<KernelMeasurements>& kernels) {
  std::string text;
  for (int c = 0; c < kColumns; ++c) text += std::string(c ? "," : "") + kColumnNames[c];
  text += '\n';
  for (const auto& kernel : kernels) {
    for (const Measurement& m : kernel.rows) {
      char time[32], host[32];
      std::snprintf(time, sizeof(time), "%.6f", m.time_ms);
      std::snprintf(host, sizeof(host), "%.6f", m.host_ms);
      text += kernel.layer + "," + short_name(kernel.op) + "," + std::to_string(m.micro_batch) + "," +
              std::to_string(m.candidate.algorithm) + "," + std::to_string(m.candidate.math_type) + "," + time + "," +
              std::to_string(m.workspace_bytes) + "," + csv_engine_field(m.candidate.engine_id) + "," + host + "\n";
    }
  }
  return text;
}

}  // namespace ucudnn
