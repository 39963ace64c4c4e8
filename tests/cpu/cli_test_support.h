#pragma once
// Running the `ucudnn` command line in-process, shared by the tests of its subcommands.

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "test_helpers.h"
#include "tools/cli.h"

namespace ucudnn::testing {
using tools::run_cli;

struct CliResult {
  int status = 0;
  std::string out;
  std::string err;
};

/// `ucudnn plan` of a measurement table under a per-kernel limit (WR) or a total (WD).
inline std::vector<std::string> plan_args(const std::string& csv, const std::string& limit) {
  return {"plan", "--measurements", csv, "--workspace-limit", limit};
}
inline std::vector<std::string> wd_args(const std::string& csv, const std::string& total) {
  return {"plan", "--measurements", csv, "--total-workspace", total};
}

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

/// Whether `out` is `db verify`'s line for a database that passed: "ok: DB, schema N, ...".
inline bool says_verified(const std::string& out, const std::string& db) {
  const std::string ending = ", every one valid; integrity and schema checked\n";
  return out.rfind("ok: " + db + ", schema ", 0) == 0 && out.size() > ending.size() &&
         out.compare(out.size() - ending.size(), ending.size(), ending) == 0;
}

/// The real binary: exit status and streams as a shell sees them.
struct ProcessResult {
  int status = -1;
  std::string out;
  std::string err;
};

inline std::string read_text_file(const std::filesystem::path& path) { return read_bytes(path.string()); }

/// Runs `ucudnn ARGUMENTS` in a shell, in a process of its own: what the process configuration
/// (the environment, read once per process) needs. `environment` goes before the command, e.g.
/// "env -u UCUDNN_DATABASE UCUDNN_DATABASE_JOURNAL=delete"; its words are not quoted.
inline ProcessResult run_binary(const TempDir& dir, const std::string& arguments, const std::string& environment = "") {
  const auto out = dir.path() / "stdout.txt";
  const auto err = dir.path() / "stderr.txt";
  const std::string command = environment + (environment.empty() ? "" : " ") + "'" + UCUDNN_CLI_PATH + "' " +
                              arguments + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int raw = std::system(command.c_str());
  ProcessResult result;
  if (raw != -1 && WIFEXITED(raw)) result.status = WEXITSTATUS(raw);
  result.out = read_text_file(out);
  result.err = read_text_file(err);
  return result;
}

}  // namespace ucudnn::testing
