#include "core/units.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

namespace ucudnn {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

bool unit_multiplier(const std::string& unit, double* multiplier) {
  struct Unit {
    const char* name;
    double value;
  };
  static const Unit kUnits[] = {
      {"", 1.0},           {"b", 1.0},
      {"k", 1024.0},       {"kib", 1024.0},          {"kb", 1e3},
      {"m", 1048576.0},    {"mib", 1048576.0},       {"mb", 1e6},
      {"g", 1073741824.0}, {"gib", 1073741824.0},    {"gb", 1e9},
      {"t", 1099511627776.0}, {"tib", 1099511627776.0}, {"tb", 1e12},
  };
  for (const auto& u : kUnits) {
    if (unit == u.name) {
      *multiplier = u.value;
      return true;
    }
  }
  return false;
}

}  // namespace

Expected<std::size_t> parse_byte_size(const std::string& text) {
  const std::string s = trim(text);
  if (s.empty()) return Error{"empty size"};
  std::size_t pos = 0;
  while (pos < s.size() && (std::isdigit(static_cast<unsigned char>(s[pos])) || s[pos] == '.')) ++pos;
  const std::string number = s.substr(0, pos);
  const std::string unit = lower(trim(s.substr(pos)));
  if (number.empty() || number == "." || std::count(number.begin(), number.end(), '.') > 1) {
    return Error{"invalid size '" + text + "': expected a number with an optional unit such as 64MiB"};
  }
  double multiplier = 0;
  if (!unit_multiplier(unit, &multiplier)) {
    return Error{"invalid size '" + text + "': unknown unit '" + unit + "' (use B, KiB, MiB, GiB, TiB)"};
  }
  const double value = std::stod(number) * multiplier;
  if (value != std::floor(value)) {
    return Error{"invalid size '" + text + "': not a whole number of bytes"};
  }
  if (value >= static_cast<double>(std::numeric_limits<std::size_t>::max())) {
    return Error{"invalid size '" + text + "': too large"};
  }
  return static_cast<std::size_t>(value);
}

std::string format_byte_size(std::size_t bytes) {
  static const char* kNames[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char buf[32];
  if (unit == 0 || value == std::floor(value)) {
    std::snprintf(buf, sizeof buf, "%.0f %s", value, kNames[unit]);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s", value, kNames[unit]);
  }
  return buf;
}

Expected<std::size_t> parse_total_workspace(const std::string& text) {
  auto parsed = parse_byte_size(text);
  if (!parsed) return parsed;
  const auto first = text.find_first_not_of(" \t\r\n");
  const std::string trimmed =
      first == std::string::npos ? "" : text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
  const bool bare = !trimmed.empty() && trimmed.find_first_not_of("0123456789") == std::string::npos;
  if (bare && *parsed > 0 && *parsed < (std::size_t{1} << 20)) {
    return Error{trimmed + " bytes is less than 1 MiB; sizes are in bytes unless a unit is given (did you mean " +
                 trimmed + "MiB?)"};
  }
  return parsed;
}

}  // namespace ucudnn
