#pragma once
// Running the `ucudnn` command line in-process, shared by the tests of its subcommands.

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "tools/cli.h"

namespace ucudnn::testing {

struct CliResult {
  int status = 0;
  std::string out;
  std::string err;
};

inline CliResult run(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  CliResult result;
  result.status = run_cli(args, out, err);
  result.out = out.str();
  result.err = err.str();
  return result;
}

/// Exactly one line, starting "ucudnn: error: ".
inline bool is_one_error_line(const std::string& err) {
  return std::count(err.begin(), err.end(), '\n') == 1 && err.back() == '\n' && err.rfind("ucudnn: error: ", 0) == 0;
}

/// A failed run: the given status, nothing on out, one error line that mentions `detail`.
inline void expect_error(const std::vector<std::string>& args, int status, const std::string& detail) {
  std::string command;
  for (const auto& arg : args) command += " " + arg;
  SCOPED_TRACE("ucudnn" + command);
  const CliResult result = run(args);
  EXPECT_EQ(result.status, status);
  EXPECT_TRUE(result.out.empty()) << result.out;
  EXPECT_TRUE(is_one_error_line(result.err)) << result.err;
  EXPECT_NE(result.err.find(detail), std::string::npos) << result.err;
}

}  // namespace ucudnn::testing
