#include "tools/cli_options.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <string>
#include <system_error>

namespace ucudnn::tools {

std::string decimal_integer_error(const std::string& text, bool negative_allowed) {
  const std::string quoted = "'" + text + "'";
  const bool negative = !text.empty() && text.front() == '-';
  const std::string digits = negative ? text.substr(1) : text;
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return quoted + " is not a decimal integer (" +
           (negative_allowed ? "digits and an optional leading '-'" : "digits") +
           " only: no 0x, 0b or 0o prefix, no spaces or units)";
  }
  if (negative && !negative_allowed) return quoted + " is negative; a number of 0 or more is expected";
  if (digits.size() > 1 && digits.front() == '0') {
    return quoted + " has a leading zero (read as octal by some tools): write the decimal number without it";
  }
  if (negative && digits == "0") return quoted + " is not a decimal integer: write 0";
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error == std::errc::result_out_of_range) return quoted + " is out of range";
  if (error != std::errc() || end != text.data() + text.size()) return quoted + " is not a decimal integer";
  return std::string();
}

CLI::Option* add_integer_option(CLI::App* command, const std::string& name, int& value, const std::string& description,
                                bool negative_allowed) {
  // A check runs on the words as given, before CLI11 converts them: the conversion then only
  // ever meets plain decimals, which it reads as written. ValidationError names the option.
  const CLI::Validator decimal(
      [negative_allowed](std::string& text) { return decimal_integer_error(text, negative_allowed); }, "", "decimal");
  return command->add_option(name, value, description)->check(decimal);
}

}  // namespace ucudnn::tools
