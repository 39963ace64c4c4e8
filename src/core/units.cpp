#include "core/units.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "core/message_text.h"

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

// The input as messages quote it: a pasted screenful of digits would swamp the one error line.
std::string quoted(const std::string& text) {
  constexpr std::size_t kShown = 40;
  return "'" + (text.size() <= kShown ? text : text.substr(0, kShown) + "...") + "'";
}

bool unit_multiplier(const std::string& unit, std::uint64_t* multiplier) {
  struct Unit {
    const char* name;
    std::uint64_t value;
  };
  static const Unit kUnits[] = {
      {"", 1},           {"b", 1},
      {"k", 1ull << 10}, {"kib", 1ull << 10},
      {"m", 1ull << 20}, {"mib", 1ull << 20},
      {"g", 1ull << 30}, {"gib", 1ull << 30},
      {"t", 1ull << 40}, {"tib", 1ull << 40},
  };
  for (const auto& u : kUnits) {
    if (unit == u.name) {
      *multiplier = u.value;
      return true;
    }
  }
  return false;
}

// KB, MB, GB, TB: frameworks write MB meaning MiB (Caffe's workspace limit,
// TF_CUDNN_WORKSPACE_LIMIT_IN_MB, CUDNN_CONV_WSCAP_DBG) where SI means 10^6, and a silent guess
// either way plans with the wrong budget.
struct AmbiguousUnit {
  const char* name;    ///< as messages write it
  const char* binary;  ///< the binary unit the user may have meant
  int power_of_two;
  int power_of_ten;
};

const AmbiguousUnit* ambiguous_unit(const std::string& unit) {
  static const AmbiguousUnit kAmbiguous[] = {
      {"KB", "KiB", 10, 3}, {"MB", "MiB", 20, 6}, {"GB", "GiB", 30, 9}, {"TB", "TiB", 40, 12}};
  for (const auto& a : kAmbiguous) {
    if (unit == lower(a.name)) return &a;
  }
  return nullptr;
}

Error out_of_range(const std::string& text) {
  return Error::invalid("invalid size " + quoted(text) + ": value out of range");
}

// Digits only: exact in integers, with overflow checked.
Expected<std::size_t> whole_bytes(const std::string& number, std::uint64_t multiplier, const std::string& text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (error == std::errc::result_out_of_range) return out_of_range(text);
  if (error != std::errc() || end != number.data() + number.size()) {
    return Error::invalid("invalid size " + quoted(text) + ": expected a number with an optional unit such as 64MiB");
  }
  if (value > std::numeric_limits<std::size_t>::max() / multiplier) return out_of_range(text);
  return static_cast<std::size_t>(value * multiplier);
}

// Digits and one point ("1.5GiB"): a whole number of bytes once the unit is applied.
Expected<std::size_t> fractional_bytes(const std::string& number, std::uint64_t multiplier, const std::string& text) {
  errno = 0;
  const double value = std::strtod(number.c_str(), nullptr) * static_cast<double>(multiplier);
  // 2^64 as a double: every value below it fits in size_t.
  constexpr double kLimit = 18446744073709551616.0;
  if (errno == ERANGE || !std::isfinite(value) || value >= kLimit) return out_of_range(text);
  if (value != std::floor(value))
    return Error::invalid("invalid size " + quoted(text) + ": not a whole number of bytes");
  return static_cast<std::size_t>(value);
}

// The refusal of KB, MB, GB or TB, with the binary spelling and its bytes where they make a size.
Error ambiguous(const std::string& text, const std::string& number, const AmbiguousUnit& unit) {
  const std::string why = quoted(trim(text)) + " is ambiguous (" + unit.name + " is 2^" +
                          std::to_string(unit.power_of_two) + " bytes to some frameworks, 10^" +
                          std::to_string(unit.power_of_ten) + " to SI): write ";
  const std::uint64_t multiplier = std::uint64_t{1} << unit.power_of_two;
  const auto bytes = number.find('.') == std::string::npos ? whole_bytes(number, multiplier, text)
                                                            : fractional_bytes(number, multiplier, text);
  // A spelling the parser refuses too (too large, not whole bytes, screen-long) is not suggested.
  if (!bytes || number.size() > 20) return Error::invalid(why + "a size in KiB, MiB, GiB or TiB, or a number of bytes");
  return Error::invalid(why + number + unit.binary + " (" + std::to_string(*bytes) + " bytes) or a number of bytes");
}

}  // namespace

Expected<std::size_t> parse_byte_size(const std::string& text) {
  const std::string s = trim(text);
  if (s.empty()) return Error::invalid("empty size");
  std::size_t pos = 0;
  while (pos < s.size() && (std::isdigit(static_cast<unsigned char>(s[pos])) || s[pos] == '.')) ++pos;
  const std::string number = s.substr(0, pos);
  const std::string unit = lower(trim(s.substr(pos)));
  const auto points = std::count(number.begin(), number.end(), '.');
  if (number.empty() || number == "." || points > 1) {
    return Error::invalid("invalid size " + quoted(text) + ": expected a number with an optional unit such as 64MiB");
  }
  // "010MiB": some tools read a leading zero as octal, and the integer options refuse it too ("0"
  // and "0.5GiB" are not leading zeros).
  if (number.size() > 1 && number[0] == '0' && number[1] != '.') {
    return Error::invalid("invalid size " + quoted(text) +
                          ": it has a leading zero (read as octal by some tools): write the decimal number without it");
  }
  if (const AmbiguousUnit* refused = ambiguous_unit(unit)) return ambiguous(text, number, *refused);
  std::uint64_t multiplier = 0;
  if (!unit_multiplier(unit, &multiplier)) {
    return Error::invalid("invalid size " + quoted(text) + ": unknown unit '" + unit +
                          "' (use B, KiB, MiB, GiB or TiB; K, M, G, T mean the same)");
  }
  const bool bare = unit.empty();
  auto bytes = points == 0 ? whole_bytes(number, multiplier, text) : fractional_bytes(number, multiplier, text);
  if (bytes && bare && *bytes > 0 && *bytes < kSmallestBareSize) {
    return Error::invalid(s + " bytes is less than 1 MiB; sizes are in bytes unless a unit is given (did you mean " +
                          s + "MiB?)");
  }
  return bytes;
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

Expected<double> parse_time_limit_seconds(const std::string& text) {
  const std::string number = !text.empty() && text.back() == 's' ? text.substr(0, text.size() - 1) : text;
  // Digits with at most one decimal point, nothing else: no sign, exponent, hex or blanks.
  const bool plain = !number.empty() && number.find_first_not_of("0123456789.") == std::string::npos &&
                     std::count(number.begin(), number.end(), '.') <= 1 && number != ".";
  const double seconds = plain ? std::strtod(number.c_str(), nullptr) : 0.0;
  if (!plain || !(seconds >= 0.001 && seconds <= 86400.0)) {
    return Error::invalid("invalid time limit '" + excerpt(text) +
                          "' (expected seconds from 0.001 to 86400, e.g. 10 or 0.5s)");
  }
  return seconds;
}

Expected<std::size_t> parse_total_workspace(const std::string& text) {
  auto parsed = parse_byte_size(text);
  if (parsed && *parsed == 0) {
    return Error::invalid("the total workspace must be more than 0 bytes: give a budget such as 120MiB");
  }
  return parsed;
}

}  // namespace ucudnn
