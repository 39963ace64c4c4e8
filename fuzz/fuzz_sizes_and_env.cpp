// Sizes and environment values from arbitrary bytes. The first byte picks the parser; the rest is
// the value. Every parser accepts or refuses with a message; accepted sizes follow the rules the
// README states (a bare number below 1 MiB is refused; KB, MB, GB and TB never parse), and the
// environment parser names the variable it refuses.

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/env_config.h"
#include "core/units.h"
#include "fuzz_check.h"

using namespace ucudnn;

namespace {

// Whether the text ends in KB, MB, GB or TB (any case, blanks after): sizes refuse these units as
// ambiguous, so no such text may parse.
bool ends_in_decimal_looking_unit(const std::string& text) {
  const auto last = text.find_last_not_of(" \t\r\n");
  if (last == std::string::npos || last < 1) return false;
  const char unit = static_cast<char>(std::tolower(static_cast<unsigned char>(text[last - 1])));
  const char b = static_cast<char>(std::tolower(static_cast<unsigned char>(text[last])));
  return b == 'b' && (unit == 'k' || unit == 'm' || unit == 'g' || unit == 't');
}

bool all_digits(const std::string& text) {
  if (text.empty()) return false;
  for (unsigned char c : text) {
    if (!std::isdigit(c)) return false;
  }
  return true;
}

void check_env(const std::string& value, unsigned which) {
  // Any row of the one table: a refusal names the variable.
  const SettingRow& row = setting_rows()[which % setting_rows().size()];
  auto config = parse_settings({{row.name, value}});
  if (!config) UCUDNN_FUZZ_CHECK(config.message().find(row.name) != std::string::npos);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const unsigned selector = data[0];
  const std::string value(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (selector % 4) {
    case 0: {
      auto bytes = parse_byte_size(value);
      if (!bytes) UCUDNN_FUZZ_CHECK(!bytes.message().empty());
      if (bytes) UCUDNN_FUZZ_CHECK(!ends_in_decimal_looking_unit(value));
      break;
    }
    case 1: {
      auto bytes = parse_total_workspace(value);
      if (bytes) UCUDNN_FUZZ_CHECK(!ends_in_decimal_looking_unit(value));
      if (bytes) {
        UCUDNN_FUZZ_CHECK(*bytes > 0);
        if (all_digits(value)) UCUDNN_FUZZ_CHECK(*bytes >= (std::size_t{1} << 20));
      }
      break;
    }
    case 2: {
      auto devices = parse_device_list(value);
      if (devices && !devices->all) {
        for (int d : devices->devices) UCUDNN_FUZZ_CHECK(d >= 0);
      }
      break;
    }
    default:
      check_env(value, selector / 4);
  }
  return 0;
}
