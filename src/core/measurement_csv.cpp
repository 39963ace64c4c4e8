#include "core/measurement_csv.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <tuple>

#include "core/candidates.h"
#include "core/input_file.h"
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
  if (!config) return Error{"invalid engine: " + config.message()};
  return format_engine_config(*config);
}

Expected<Row> parse_row(const std::vector<std::string>& fields) {
  if (fields[0].empty()) return Error{"empty layer name"};
  if (!is_valid_utf8(fields[0])) return Error{"layer name is not valid UTF-8"};
  const auto op = parse_conv_op(fields[1]);
  if (!op) return Error{"unknown op '" + excerpt(fields[1]) + "' (expected fwd, bwdd or bwdf)"};
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
      {4, parse_integer(fields[4], 0, 15, &math_type), "an integer from 0 to 15"},
      {5, parse_time(fields[5], &time_ms), "milliseconds from 0 to at most 1e9"},
      {6, parse_integer(fields[6], 0, max_workspace, &workspace), "a whole number of bytes"},
      {8, !has_host || parse_time(fields[8], &host_ms), "milliseconds from 0 to at most 1e9"},
  };
  for (const auto& check : checks) {
    if (!check.ok) {
      return Error{"invalid " + std::string(kColumnNames[check.column]) + " '" + excerpt(fields[check.column]) +
                   "' (expected " + check.expected + ")"};
    }
  }
  Row row;
  row.op = *op;
  row.measurement.micro_batch = static_cast<int>(microbatch);
  row.measurement.algo = static_cast<int>(algo);
  row.measurement.math_type = static_cast<int>(math_type);
  row.measurement.time_ms = time_ms;
  row.measurement.workspace_bytes = static_cast<std::size_t>(workspace);
  row.measurement.engine = std::move(engine);
  row.measurement.host_ms = host_ms;
  return row;
}

// What makes two rows the same measurement: a second one is refused, not silently chosen from.
using RowKey = std::tuple<std::string, ConvOp, int, int, int, std::string>;

std::string describe(const RowKey& key) {
  const std::string& engine = std::get<5>(key);
  return excerpt(std::get<0>(key)) + " " + short_name(std::get<1>(key)) + " micro-batch " + std::to_string(std::get<2>(key)) +
         " algo " + std::to_string(std::get<3>(key)) + " math_type " + std::to_string(std::get<4>(key)) +
         (engine.empty() ? "" : " engine " + engine);
}

constexpr char kByteOrderMark[] = "\xEF\xBB\xBF";

}  // namespace

Expected<std::vector<KernelMeasurements>> parse_measurements_csv(std::istream& in,
                                                                 const std::string& source_name) {
  std::vector<KernelMeasurements> kernels;
  std::map<std::pair<std::string, ConvOp>, std::size_t> index;
  std::map<RowKey, int> first_line;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    const std::string where = source_name + ":" + std::to_string(line_number) + ": ";
    if (line_number == 1 && line.rfind(kByteOrderMark, 0) == 0) line.erase(0, 3);  // spreadsheets write one
    // getline keeps NUL bytes, but C string functions would end the field there.
    if (line.find('\0') != std::string::npos) return Error{where + "NUL byte in the line"};
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto fields = split_fields(line);
    if (line_number == 1 && !fields.empty() && fields[0] == "layer") continue;  // header
    if (static_cast<int>(fields.size()) < kRequiredColumns) {
      return Error{where + "expected 7 to 9 comma-separated fields (" +
                   "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes[,engine[,host_ms]]), got " +
                   std::to_string(fields.size())};
    }
    auto row = parse_row(fields);
    if (!row) return row.error().prefixed(where);
    const Measurement& m = row->measurement;

    const RowKey row_key{fields[0], row->op, m.micro_batch, m.algo, m.math_type, m.engine};
    const auto [first, inserted] = first_line.emplace(row_key, line_number);
    if (!inserted) {
      return Error{where + "duplicate row for " + describe(row_key) + " (first at line " +
                   std::to_string(first->second) + ")"};
    }

    const auto key = std::make_pair(fields[0], row->op);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, kernels.size()).first;
      kernels.push_back(KernelMeasurements{fields[0], row->op, 0, {}});
    }
    KernelMeasurements& kernel = kernels[it->second];
    kernel.rows.push_back(m);
    kernel.batch = std::max(kernel.batch, m.micro_batch);
  }
  if (in.bad()) return Error{source_name + ": read error"};
  if (kernels.empty()) return Error{source_name + ": no measurement rows"};
  return kernels;
}

Expected<std::vector<KernelMeasurements>> read_measurements_csv(const std::string& path) {
  UCUDNN_TRY(check_input_file(path, "measurements file"));
  std::ifstream in(path);
  if (!in) {
    return Error{"cannot open measurements file '" + path + "': " + std::strerror(errno)};
  }
  return parse_measurements_csv(in, path);
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
              std::to_string(m.algo) + "," + std::to_string(m.math_type) + "," + time + "," +
              std::to_string(m.workspace_bytes) + "," + csv_engine_field(m.engine) + "," + host + "\n";
    }
  }
  return text;
}

}  // namespace ucudnn
