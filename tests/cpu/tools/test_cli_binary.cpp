// The `ucudnn` command as a whole: its version, its help, option names shared by the
// subcommands, and the binary's exit statuses and error lines.

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_test_support.h"
#include "test_helpers.h"

namespace ucudnn::testing {
using tools::kExitDataError;
using tools::kExitOk;
using tools::kExitUsageError;
namespace {

using Json = nlohmann::ordered_json;


// ---- the command as a whole: version, help, option names ---------------------------------------

// The release as include/ucudnn/version.h states it, read as CMake reads it (the macros' lines).
std::string release_of_version_header() {
  std::ifstream header(std::string(UCUDNN_SOURCE_DIR) + "/include/ucudnn/version.h");
  std::map<std::string, std::string> parts;
  const std::regex line(R"(^#define UCUDNN_VERSION_(MAJOR|MINOR|PATCH) ([0-9]+)\s*$)");
  for (std::string text; std::getline(header, text);) {
    std::smatch m;
    if (std::regex_match(text, m, line)) parts[m[1]] = m[2];
  }
  EXPECT_EQ(parts.size(), 3u) << "version.h lost a UCUDNN_VERSION_ macro";
  return parts["MAJOR"] + "." + parts["MINOR"] + "." + parts["PATCH"];
}

// Whether this build left CUDA out, as `ucudnn --version` says.
bool built_without_cuda() { return run({"--version"}).out.find("\nbuilt without CUDA") != std::string::npos; }

// Whether the CHANGELOG lists changes as unreleased: then --version says so after the release.
bool changelog_lists_unreleased_changes() {
  std::ifstream changelog(std::filesystem::path(UCUDNN_SOURCE_DIR) / "CHANGELOG.md");
  for (std::string line; std::getline(changelog, line);) {
    if (line.rfind("## Unreleased", 0) == 0) return true;
  }
  return false;
}

TEST(CliVersion, PrintsTheReleaseAndTheBuild) {
  const std::regex built(R"(built with cuDNN [0-9]+\.[0-9]+\.[0-9]+, CUDA [0-9]+\.[0-9]+|built without CUDA .*)");
  const std::string release = release_of_version_header();
  const std::string unreleased = "+unreleased (changes after " + release + ": CHANGELOG.md, \"Unreleased\")";
  for (const auto& args : std::vector<std::vector<std::string>>{{"--version"}, {"version"}}) {
    const CliResult result = run(args);
    EXPECT_EQ(result.status, kExitOk) << args[0];
    EXPECT_TRUE(result.err.empty()) << result.err;
    const auto lines = lines_of(result.out);
    ASSERT_EQ(lines.size(), 2u) << result.out;
    EXPECT_EQ(lines[0], "ucudnn " + release + (changelog_lists_unreleased_changes() ? unreleased : ""));
    EXPECT_TRUE(std::regex_match(lines[1], built)) << lines[1];
    EXPECT_EQ(result.out.back(), '\n');
  }
  EXPECT_EQ(run({"--version"}).out, run({"version"}).out);
  testing::TempDir dir;
  const ProcessResult binary = run_binary(dir, "--version");
  EXPECT_EQ(binary.status, kExitOk);
  EXPECT_EQ(binary.out, run({"--version"}).out);
  EXPECT_NE(run({"--help"}).out.find("--version"), std::string::npos);
}

TEST(CliVersion, TakesNoOtherArguments) {
  const int usage = kExitUsageError;
  expect_error({"--version", "plan"}, usage, "--version takes no other arguments (got 'plan')");
  expect_error({"--version", "--help"}, usage, "--version takes no other arguments");
  expect_error({"--help", "--version"}, usage, "run `ucudnn --version` alone");
  expect_error({"--version=1"}, usage, "--version");
  expect_error({"version", "extra"}, usage, "extra");
  expect_error({"version", "--json"}, usage, "--json");
  // After a subcommand it is not that subcommand's option: refused, never ignored.
  expect_error(with(plan_args(testing::alexnet_csv_path(), "64MiB"), {"--version"}), usage, "--version");
  expect_error({"db", "stats", "--version"}, usage, "--version");
}

// Each size option's help states the units, as the parser applies them.
TEST(CliHelp, EverySizeOptionStatesTheBinaryUnits) {
  const auto count = [](const std::string& text, const std::string& word) {
    std::size_t n = 0;
    for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
    return n;
  };
  const std::string phrase = "binary units: 64MiB or 64M = 67108864 bytes; MB is refused as ambiguous";
  const CliResult plan = run({"plan", "--help"});
  EXPECT_EQ(count(plan.out, phrase), 2u) << plan.out;  // --workspace-limit, --total-workspace
  EXPECT_NE(plan.out.find("--workspace-limit SIZE"), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("--total-workspace SIZE"), std::string::npos) << plan.out;
  const CliResult import = run({"db", "import", "--help"});
  EXPECT_EQ(count(import.out, phrase), 1u) << import.out;  // --measured-up-to
  EXPECT_NE(import.out.find("--measured-up-to SIZE"), std::string::npos) << import.out;
  // The main help's footer says what SIZE is, and what the table option is called.
  const CliResult main = run({"--help"});
  EXPECT_NE(main.out.find("SIZE: a number of bytes"), std::string::npos) << main.out;
  EXPECT_NE(main.out.find("KB, MB, GB and TB are refused as ambiguous"), std::string::npos) << main.out;
  EXPECT_NE(main.out.find("--measurements FILE"), std::string::npos) << main.out;
  for (const char* command : {"plan", "db", "bench", "version"}) {
    EXPECT_NE(main.out.find("\n  " + std::string(command) + " "), std::string::npos) << command;
  }
}

// What a help says after its options (its footer: from its last option line on).
std::string footer_of(const std::string& help) {
  const auto options = help.rfind("\n  -");
  const auto end = help.find("\n\n", options);
  return end == std::string::npos ? "" : help.substr(end);
}

// Each subcommand's notes fit it: SIZE explained only where an option takes a SIZE, the table's
// option only where one is read or written, the settings it reads and no others.
TEST(CliHelp, EachSubcommandsNotesFitItsOwnOptions) {
  const std::vector<std::vector<std::string>> commands = {{"plan"},         {"db"},          {"db", "import"},
                                                          {"db", "export"}, {"db", "stats"}, {"db", "verify"},
                                                          {"db", "merge"},  {"bench"},       {"version"}};
  for (const auto& command : commands) {
    const CliResult help = run(with(command, {"--help"}));
    std::string name;
    for (const auto& word : command) name += " " + word;
    SCOPED_TRACE("ucudnn" + name + " --help");
    ASSERT_EQ(help.status, kExitOk) << help.err;
    const std::string footer = footer_of(help.out);
    const bool takes_size = help.out.find(" SIZE ") != std::string::npos;
    const bool names_a_table = help.out.find("\n  --measurements") != std::string::npos ||
                               help.out.find(",--measurements") != std::string::npos;
    EXPECT_EQ(footer.find("SIZE: a number of bytes") != std::string::npos, takes_size) << help.out;
    EXPECT_EQ(footer.find("is named by --measurements FILE") != std::string::npos, names_a_table) << help.out;
    EXPECT_NE(footer.find("Exit status: 0 success"), std::string::npos) << help.out;
  }
  const std::string verify = run({"db", "verify", "--help"}).out;
  EXPECT_EQ(footer_of(verify).find("SIZE"), std::string::npos) << verify;
  EXPECT_NE(footer_of(verify).find("UCUDNN_DATABASE "), std::string::npos) << verify;
  EXPECT_EQ(footer_of(verify).find("UCUDNN_MEMORY_BUDGET"), std::string::npos) << verify;
  const std::string plan = run({"plan", "--help"}).out;
  EXPECT_NE(footer_of(plan).find("UCUDNN_DEFAULT_WORKSPACE_LIMIT"), std::string::npos) << plan;
  EXPECT_EQ(footer_of(plan).find("UCUDNN_LOG_FILE"), std::string::npos) << plan;
  // The main help keeps every note and every setting; its title says what the command does.
  const std::string main = run({"--help"}).out;
  EXPECT_NE(footer_of(main).find("SIZE: a number of bytes"), std::string::npos) << main;
  EXPECT_NE(footer_of(main).find("UCUDNN_LOG_FILE"), std::string::npos) << main;
  EXPECT_EQ(main.find("offline tools"), std::string::npos) << main;
  EXPECT_EQ(main.rfind("ucudnn: micro-batched cuDNN convolutions: plan offline, benchmark, run a program", 0), 0u)
      << main;
  // `run` keeps its own: its exit status is its program's.
  EXPECT_NE(footer_of(run({"run", "--help"}).out).find("its exit status is the run's"), std::string::npos);
}

// Every error line starts lower-case, as one sentence of the project's: CLI11's own included
// ("Could not convert", "The following argument"). A name ("UCUDNN_X", "SQLite") may start it.
TEST(CliErrors, EveryErrorLineStartsLowerCase) {
  testing::TempDir dir;
  const std::string csv = testing::alexnet_csv_path();
  const std::string garbage = dir.write("garbage.csv", "not,a,table\n");
  const std::vector<std::vector<std::string>> refusals = {
      {},
      {"bogus"},
      {"plan"},
      {"plan", "alexnet"},
      {"plan", "alexnt"},
      {"plan", garbage},
      {"plan", csv, "--network", "resnet50"},
      {"plan", csv, "--workspace-limit", "64MB"},
      {"plan", csv, "--workspace-limit"},
      {"plan", csv, "--policy", "half"},
      {"plan", csv, "--compute-capability", "x"},
      {"plan", csv, "--pareto", "nothing:fwd"},
      {"plan", csv, "--json=maybe"},
      {"db"},
      {"db", "import"},
      {"db", "stats", "--database", "x.db", "--database", "y.db"},
      {"db", "verify", "--database", (dir.path() / "missing.db").string()},
      {"db", "merge", "--from", "a.db"},
      {"bench"},
      {"run"},
      {"version", "extra"},
      {"--version", "extra"},
  };
  for (const auto& args : refusals) {
    std::string command;
    for (const auto& arg : args) command += " " + arg;
    SCOPED_TRACE("ucudnn" + command);
    const CliResult result = run(args);
    EXPECT_NE(result.status, kExitOk);
    ASSERT_TRUE(is_one_error_line(result.err)) << result.err;
    const std::string message = result.err.substr(std::string("ucudnn: error: ").size());
    ASSERT_GE(message.size(), 2u);
    EXPECT_FALSE(std::isupper(static_cast<unsigned char>(message[0])) &&
                 std::islower(static_cast<unsigned char>(message[1])))
        << result.err;
  }
}

// bench names its network --network, as db import and export do; --net (0.1) still works.
TEST(CliBench, NamesTheNetworkAsDbDoesAndKeepsTheOldName) {
  const int usage = kExitUsageError;
  if (built_without_cuda()) {
    // The stand-in takes any arguments and says what the build left out.
    expect_error({"bench", "--network", "alexnet"}, kExitDataError, "built without the CUDA toolkit");
    return;
  }
  const CliResult help = run({"bench", "--help"});
  EXPECT_NE(help.out.find("--network NET"), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find("--net "), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--measurements FILE"), std::string::npos) << help.out;
  expect_error({"bench"}, usage, "--network is required");
  expect_error({"bench", "--network", "a", "--net", "b"}, usage, "give it once");
  // Both spellings reach the network before any GPU work: a missing file is a data error naming it.
  testing::TempDir dir;
  const std::string db = (dir.path() / "bench.db").string();
  const std::string missing = (dir.path() / "missing.json").string();
  expect_error({"bench", "--network", missing, "--database", db}, kExitDataError, "'" + missing + "'");
  expect_error({"bench", "--net", missing, "--database", db}, kExitDataError, "'" + missing + "'");
  EXPECT_FALSE(std::filesystem::exists(db));
}

TEST(CliBinary, BadInvocationExitsNonZeroWithOneErrorLine) {
  testing::TempDir dir;
  const std::string csv = "'" + testing::alexnet_csv_path() + "'";
  const ProcessResult usage =
      run_binary(dir, "plan --measurements " + csv + " --workspace-limit lots");
  EXPECT_EQ(usage.status, kExitUsageError);
  EXPECT_TRUE(usage.out.empty()) << usage.out;
  EXPECT_TRUE(is_one_error_line(usage.err)) << usage.err;

  const ProcessResult data = run_binary(
      dir, "plan --measurements '" + (dir.path() / "none.csv").string() + "' --workspace-limit 1MiB");
  EXPECT_EQ(data.status, kExitDataError);
  EXPECT_TRUE(is_one_error_line(data.err)) << data.err;

  const ProcessResult bare = run_binary(dir, "");
  EXPECT_EQ(bare.status, kExitUsageError);
  EXPECT_TRUE(is_one_error_line(bare.err)) << bare.err;
}

TEST(CliBinary, EveryCommandRefusesABadSettingNamingTheVariable) {
  testing::TempDir dir;
  const std::string plan = "plan --measurements '" + testing::alexnet_csv_path() + "' --workspace-limit 64MiB";
  ASSERT_EQ(run_binary(dir, plan).status, 0);
  for (const char* setting : {"UCUDNN_LOG_LEVEL=loud", "UCUDNN_BENCHMARK_DEVICES=0,x", "UCUDNN_STATS=yes",
                              "UCUDNN_DATABASE_JOURNAL=fast"}) {
    const ProcessResult bad = run_binary(dir, plan, std::string("env ") + setting);
    const std::string name = std::string(setting).substr(0, std::string(setting).find('='));
    EXPECT_EQ(bad.status, kExitUsageError) << setting;
    EXPECT_TRUE(is_one_error_line(bad.err)) << bad.err;
    EXPECT_NE(bad.err.find(name), std::string::npos) << bad.err;
  }
}

TEST(CliBinary, GoodInvocationPrintsJsonAndExitsZero) {
  testing::TempDir dir;
  const std::string csv = "'" + testing::alexnet_csv_path() + "'";
  const ProcessResult result =
      run_binary(dir, "plan --measurements " + csv + " --workspace-limit 64MiB --json");
  EXPECT_EQ(result.status, 0);
  EXPECT_TRUE(result.err.empty()) << result.err;
  const Json json = Json::parse(result.out);
  EXPECT_EQ(json["mode"], "wr");
  EXPECT_EQ(json["kernels"].size(), 15u);
}

}  // namespace
}  // namespace ucudnn::testing
