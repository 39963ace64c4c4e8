#include "core/measurement_csv.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace ucudnn {
namespace {

constexpr int kColumns = 7;
const char* const kColumnNames[kColumns] = {"layer", "op", "microbatch", "algo", "math_type",
                                            "time_ms", "workspace_bytes"};

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream ss(line);
  std::string field;
  while (std::getline(ss, field, ',')) {
    const auto first = field.find_first_not_of(" \t");
    const auto last = field.find_last_not_of(" \t\r");
    fields.push_back(first == std::string::npos ? "" : field.substr(first, last - first + 1));
  }
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

bool parse_integer(const std::string& text, long long min_value, long long* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || value < min_value) return false;
  *out = value;
  return true;
}

bool parse_time(const std::string& text, double* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(value) || value < 0) return false;
  *out = value;
  return true;
}

}  // namespace

Expected<std::vector<KernelMeasurements>> parse_measurements_csv(std::istream& in,
                                                                 const std::string& source_name) {
  std::vector<KernelMeasurements> kernels;
  std::map<std::pair<std::string, ConvOp>, std::size_t> index;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    const std::string where = source_name + ":" + std::to_string(line_number) + ": ";
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto fields = split_fields(line);
    if (line_number == 1 && !fields.empty() && fields[0] == "layer") continue;  // header
    if (static_cast<int>(fields.size()) != kColumns) {
      return Error{where + "expected " + std::to_string(kColumns) + " comma-separated fields (" +
                   "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes), got " +
                   std::to_string(fields.size())};
    }
    if (fields[0].empty()) return Error{where + "empty layer name"};
    const auto op = parse_conv_op(fields[1]);
    if (!op) return Error{where + "unknown op '" + fields[1] + "' (expected fwd, bwdd or bwdf)"};

    long long microbatch = 0, algo = 0, math_type = 0, workspace = 0;
    double time_ms = 0;
    const struct {
      int column;
      bool ok;
    } checks[] = {
        {2, parse_integer(fields[2], 1, &microbatch) && microbatch <= (1 << 30)},
        {3, parse_integer(fields[3], 0, &algo) && algo < algo_count(*op)},
        {4, parse_integer(fields[4], 0, &math_type) && math_type < 16},
        {5, parse_time(fields[5], &time_ms)},
        {6, parse_integer(fields[6], 0, &workspace)},
    };
    for (const auto& check : checks) {
      if (!check.ok) {
        return Error{where + "invalid " + kColumnNames[check.column] + " '" + fields[check.column] +
                     "'"};
      }
    }

    const auto key = std::make_pair(fields[0], *op);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, kernels.size()).first;
      kernels.push_back(KernelMeasurements{fields[0], *op, 0, {}});
    }
    KernelMeasurements& kernel = kernels[it->second];
    Measurement m;
    m.micro_batch = static_cast<int>(microbatch);
    m.algo = static_cast<int>(algo);
    m.math_type = static_cast<int>(math_type);
    m.time_ms = time_ms;
    m.workspace_bytes = static_cast<std::size_t>(workspace);
    kernel.rows.push_back(m);
    kernel.batch = std::max(kernel.batch, m.micro_batch);
  }
  if (in.bad()) return Error{source_name + ": read error"};
  if (kernels.empty()) return Error{source_name + ": no measurement rows"};
  return kernels;
}

Expected<std::vector<KernelMeasurements>> read_measurements_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return Error{"cannot open measurements file '" + path + "': " + std::strerror(errno)};
  }
  return parse_measurements_csv(in, path);
}

std::string format_measurements_csv(const std::vector<KernelMeasurements>& kernels) {
  std::string text;
  for (int c = 0; c < kColumns; ++c) text += std::string(c ? "," : "") + kColumnNames[c];
  text += '\n';
  for (const auto& kernel : kernels) {
    for (const Measurement& m : kernel.rows) {
      char time[32];
      std::snprintf(time, sizeof(time), "%.6f", m.time_ms);
      text += kernel.layer + "," + short_name(kernel.op) + "," + std::to_string(m.micro_batch) + "," +
              std::to_string(m.algo) + "," + std::to_string(m.math_type) + "," + time + "," +
              std::to_string(m.workspace_bytes) + "\n";
    }
  }
  return text;
}

}  // namespace ucudnn
