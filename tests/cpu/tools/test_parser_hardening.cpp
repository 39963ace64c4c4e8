// The commands and the environment on inputs that used to hang, exhaust memory, print nonsense or
// fail with an unclear error (the CSV parser's own cases: core/test_measurement_csv.cpp).

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../preload/probe_runner.h"
#include "cli_test_support.h"
#include "core/env_config.h"
#include "core/row_rules.h"
#include "core/units.h"
#include "optimize/pareto.h"
#include "test_helpers.h"
#include "tools/cli.h"

namespace ucudnn::testing {
using optimize::desirable_configurations;
using optimize::FrontWork;
using tools::kExitDataError;
using tools::kExitOk;
using tools::kExitUsageError;
namespace {

const char kHeader[] = "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes\n";

// A string literal with its embedded NUL bytes kept.
template <std::size_t N>
std::string bytes(const char (&text)[N]) {
  return std::string(text, N - 1);
}


class ParserHardening : public ::testing::Test {
 protected:
  testing::TempDir dir_;
  const std::string alexnet_ = testing::alexnet_csv_path();
};

// ---- micro-batch sizes have a stated maximum ----------------------------------------------------

TEST_F(ParserHardening, PlanRefusesAMicroBatchAboveTheMaximum) {
  const std::string csv = dir_.write("huge.csv", "k,fwd,65537,0,0,1.0,0\n");
  expect_error(plan_args(csv, "64MiB"), kExitDataError, csv + ":1: invalid microbatch '65537'");
}

// ---- planning cost is bounded by the rows, not the distinct workspaces --------------------------

// One kernel, micro-batches 1..64, every row with its own workspace and a random time.
std::vector<Measurement> rows_with_distinct_workspaces(int count) {
  std::mt19937 random(12);
  std::uniform_real_distribution<double> time(0.1, 10.0);
  std::vector<Measurement> rows;
  for (int i = 0; i < count; ++i) {
    Measurement m;
    m.micro_batch = 1 << (i % 7);
    m.algo = i % 8;
    m.time_ms = time(random) * m.micro_batch;
    m.workspace_bytes = static_cast<std::size_t>(i) * 4096;
    rows.push_back(m);
  }
  return rows;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST_F(ParserHardening, ParetoFrontOfHundredThousandDistinctWorkspacesIsQuick) {
  // Used to solve the dynamic program once per distinct workspace, each time scanning every row:
  // more than a minute. Sorting once and sweeping takes well under a second; the bound is generous.
  const auto rows = rows_with_distinct_workspaces(100000);
  const auto start = std::chrono::steady_clock::now();
  const auto front = desirable_configurations(64, {1, 2, 4, 8, 16, 32, 64}, rows);
  EXPECT_LT(seconds_since(start), 20.0);
  ASSERT_FALSE(front.empty());
  for (std::size_t i = 1; i < front.size(); ++i) {
    EXPECT_GT(front[i].workspace_bytes, front[i - 1].workspace_bytes);
    EXPECT_LT(front[i].time_ms, front[i - 1].time_ms);
  }
}

// The WR program is solved once per row that makes its size faster than every row of that size
// with less workspace: never more often than there are rows, whatever their workspaces.
TEST_F(ParserHardening, FrontSolvesTheProgramOnlyWhereARowImprovesItsSize) {
  const auto rows = rows_with_distinct_workspaces(100000);
  FrontWork work;
  desirable_configurations(64, {1, 2, 4, 8, 16, 32, 64}, rows, &work);
  EXPECT_EQ(work.rows_used, rows.size());
  // Independently: rows that are faster than every earlier row of their size (workspaces ascend).
  std::map<int, double> fastest;
  std::size_t improving = 0;
  for (const auto& row : rows) {
    const auto it = fastest.find(row.micro_batch);
    if (it == fastest.end() || row.time_ms < it->second) {
      fastest[row.micro_batch] = row.time_ms;
      ++improving;
    }
  }
  EXPECT_EQ(work.wr_solves, improving);
  EXPECT_LT(work.wr_solves, 1000u);  // random times: a few records per size, not 100,000 solves

  // Worst case: every row faster than the last; one solve per row, and every row on the front.
  std::vector<Measurement> descending;
  for (int i = 0; i < 100000; ++i) {
    Measurement m;
    m.micro_batch = 4;
    m.time_ms = 200000.0 - i;
    m.workspace_bytes = static_cast<std::size_t>(i) * 512;
    descending.push_back(m);
  }
  const auto start = std::chrono::steady_clock::now();
  const auto front = desirable_configurations(4, {1, 2, 4}, descending, &work);
  EXPECT_LT(seconds_since(start), 20.0);
  EXPECT_EQ(work.wr_solves, descending.size());
  EXPECT_EQ(front.size(), descending.size());
}

// `plan --total-workspace` and `--pareto` over a table of 100,000 rows, each with its own workspace.
TEST_F(ParserHardening, DivisionAndParetoOfAHundredThousandRowsAreQuick) {
  std::mt19937 random(7);
  std::uniform_real_distribution<double> time(0.1, 10.0);
  std::string text = kHeader;
  std::size_t workspace = 0;
  // 896 rows a kernel: 28 sizes, 8 algorithms, 4 math types.
  for (int layer = 0; text.size() < 4000000 && layer < 200; ++layer) {
    for (int size = 1; size <= 28; ++size) {
      for (int algo = 0; algo < 8; ++algo) {
        for (int math = 0; math <= max_math_type(); ++math) {
          workspace += 4096;
          text += "conv" + std::to_string(layer) + ",fwd," + std::to_string(size) + "," + std::to_string(algo) +
                  "," + std::to_string(math) + "," + std::to_string(time(random) * size) + "," +
                  std::to_string(workspace) + "\n";
        }
      }
    }
    if (workspace / 4096 >= 100000) break;
  }
  const std::string csv = dir_.write("large.csv", text);
  auto start = std::chrono::steady_clock::now();
  const CliResult division = run(wd_args(csv, "64GiB"));
  EXPECT_EQ(division.status, kExitOk) << division.err;
  EXPECT_LT(seconds_since(start), 20.0);
  start = std::chrono::steady_clock::now();
  const CliResult pareto = run({"plan", "--measurements", csv, "--pareto", "conv3:fwd"});
  EXPECT_EQ(pareto.status, kExitOk) << pareto.err;
  EXPECT_LT(seconds_since(start), 20.0);
}

// ---- numbers too large are usage errors, also through the environment ---------------------------

const std::string kHugeNumber(400, '9');

TEST_F(ParserHardening, SizeTooLargeForADoubleIsOutOfRangeNotAnException) {
  for (const std::string& text : {kHugeNumber, kHugeNumber + "MiB", "1" + std::string(330, '0') + ".5GiB",
                                  std::string("18446744073709551616"), std::string("17179869184GiB")}) {
    const auto size = parse_byte_size(text);
    ASSERT_FALSE(size.ok()) << text;
    EXPECT_NE(size.message().find("out of range"), std::string::npos) << size.message();
  }
}

TEST_F(ParserHardening, HugeSizeOptionIsAUsageErrorNamingTheOption) {
  expect_error(plan_args(alexnet_, kHugeNumber), kExitUsageError, "--workspace-limit: ");
  expect_error(plan_args(alexnet_, kHugeNumber), kExitUsageError, "out of range");
  expect_error(wd_args(alexnet_, kHugeNumber), kExitUsageError, "--total-workspace: ");
  expect_error(wd_args(alexnet_, kHugeNumber + "MiB"), kExitUsageError, "out of range");
}

TEST_F(ParserHardening, HugeSizeInTheEnvironmentNamesTheVariable) {
  EnvValues values;
  values.default_workspace_limit = kHugeNumber.c_str();
  const auto config = parse_env_config(values);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.error().code, ErrorCode::kBadParam);
  EXPECT_NE(config.message().find("UCUDNN_DEFAULT_WORKSPACE_LIMIT: "), std::string::npos) << config.message();
  EXPECT_NE(config.message().find("out of range"), std::string::npos) << config.message();
}

TEST_F(ParserHardening, HugeSizeInTheEnvironmentFailsHandleCreationWithBadParam) {
  const testing::ProbeRun run = testing::run_probe("LD_PRELOAD=" + testing::preload_library_path() +
                                                   " UCUDNN_DEFAULT_WORKSPACE_LIMIT=" + kHugeNumber);
  ASSERT_EQ(run.exit_status, 0) << run.output;
  EXPECT_EQ(run.values.at("create"), "CUDNN_STATUS_BAD_PARAM") << run.output;
  EXPECT_NE(run.output.find("UCUDNN_DEFAULT_WORKSPACE_LIMIT: "), std::string::npos) << run.output;
}

// ---- names that are not UTF-8 are refused where they are read -----------------------------------

TEST_F(ParserHardening, JsonPlanOfANonUtf8LayerIsADataErrorNamingTheLine) {
  const std::string csv = dir_.write("latin1.csv", "conv\xe9,fwd,1,0,0,1.0,0\n");
  expect_error({"plan", "--measurements", csv, "--workspace-limit", "64MiB", "--json"}, kExitDataError,
               csv + ":1: layer name is not valid UTF-8");
}

// GPU names reach the database through `db import --gpu-name`; refused there, as layer names are.
TEST_F(ParserHardening, GpuNameThatIsNotUtf8IsRefusedByDbImport) {
  const std::string db = (dir_.path() / "bench.db").string();
  const std::vector<std::string> import = {"db", "import", alexnet_, "--database", db, "--network", "alexnet",
                                           "--gpu-name", "NVIDIA H100\xff", "--compute-capability", "90",
                                           "--sm-count", "132", "--cudnn-version", "91400", "--cuda-version",
                                           "13000"};
  expect_error(import, kExitUsageError, "--gpu-name is not valid UTF-8");
}

// ---- no nonsense numbers or NUL bytes -----------------------------------------------------------

TEST_F(ParserHardening, HugeTimesGiveNoInfiniteOrNullTotals) {
  const std::string csv = dir_.write("huge_times.csv", "a,fwd,1,0,0,1.7e308,0\nb,fwd,1,0,0,1.7e308,0\n");
  expect_error(plan_args(csv, "64MiB"), kExitDataError, csv + ":1: invalid time_ms '1.7e308'");
  // At the bound, every total is a finite number.
  const std::string largest = dir_.write("largest.csv", "a,fwd,1,0,0,1e9,0\nb,fwd,1,0,0,1e9,0\n");
  const CliResult result = run({"plan", "--measurements", largest, "--workspace-limit", "0", "--json"});
  ASSERT_EQ(result.status, kExitOk) << result.err;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["total_time_ms"].get<double>(), 2e9);
  EXPECT_EQ(json["undivided_total_time_ms"].get<double>(), 2e9);
}

TEST_F(ParserHardening, PlanPrintsNoNegativeZeroTime) {
  const std::string csv = dir_.write("minus_zero.csv", "k,fwd,1,0,0,-0,0\nk,fwd,2,0,0,-0.000,0\n");
  const CliResult table = run(plan_args(csv, "0"));
  ASSERT_EQ(table.status, kExitOk) << table.err;
  EXPECT_EQ(table.out.find("-0"), std::string::npos) << table.out;
}

TEST_F(ParserHardening, PlanRefusesANulByteNamingFileAndLine) {
  const std::string csv = dir_.write("nul.csv", bytes("k,fwd,1,0,0,5\0" "999,0\n"));
  expect_error(plan_args(csv, "64MiB"), kExitDataError, csv + ":1: ");
}

// ---- every size option refuses a bare number below 1 MiB; a zero budget is refused --------------

// The original μ-cuDNN took megabytes; here a bare number is bytes, and one below 1 MiB a likely slip.
TEST_F(ParserHardening, BareSmallSizeIsRefusedByEverySizeOption) {
  const struct {
    const char* option;
    std::vector<std::string> (*args)(const std::string& csv, const std::string& size);
  } options[] = {{"--workspace-limit", plan_args}, {"--total-workspace", wd_args}};
  for (const auto& o : options) {
    SCOPED_TRACE(o.option);
    expect_error(o.args(alexnet_, "64"), kExitUsageError,
                 std::string(o.option) +
                     ": 64 bytes is less than 1 MiB; sizes are in bytes unless a unit is given (did you mean 64MiB?)");
    expect_error(o.args(alexnet_, " 1048575 "), kExitUsageError, "(did you mean 1048575MiB?)");
    EXPECT_EQ(run(o.args(alexnet_, "1048576")).status, kExitOk);
    EXPECT_EQ(run(o.args(alexnet_, "1KiB")).status, kExitOk);  // a unit says it is meant
  }
  EXPECT_EQ(run(plan_args(alexnet_, "0")).status, kExitOk);  // no workspace at all (a zero budget: below)
}

TEST_F(ParserHardening, ZeroTotalWorkspaceIsRefused) {
  for (const char* zero : {"0", "0MiB", "0 B"}) {
    expect_error(wd_args(alexnet_, zero), kExitUsageError, "--total-workspace: ");
    expect_error(wd_args(alexnet_, zero), kExitUsageError, "more than 0 bytes");
  }
}

TEST_F(ParserHardening, BareSmallSizesInTheEnvironmentAreRefusedNamingTheVariable) {
  const struct {
    const char* EnvValues::*field;
    const char* name;
  } sizes[] = {{&EnvValues::default_workspace_limit, "UCUDNN_DEFAULT_WORKSPACE_LIMIT"},
               {&EnvValues::forced_workspace_limit, "UCUDNN_FORCE_WORKSPACE_LIMIT"},
               {&EnvValues::deprecated_workspace_limit, "UCUDNN_WORKSPACE_LIMIT"},
               {&EnvValues::total_workspace, "UCUDNN_TOTAL_WORKSPACE_SIZE"}};
  for (const auto& size : sizes) {
    EnvValues values;
    values.*size.field = "64";
    const auto config = parse_env_config(values);
    ASSERT_FALSE(config.ok()) << size.name;
    EXPECT_EQ(config.message().rfind(std::string(size.name) + ": ", 0), 0u) << config.message();
    EXPECT_NE(config.message().find("did you mean 64MiB?"), std::string::npos) << config.message();
    values.*size.field = "8MiB";
    EXPECT_TRUE(parse_env_config(values).ok()) << size.name;
  }
  EnvValues zero;
  zero.forced_workspace_limit = "0";  // a limit of no workspace means something
  ASSERT_TRUE(parse_env_config(zero).ok());
  EXPECT_EQ(*parse_env_config(zero)->forced_workspace_limit, 0u);
  zero.total_workspace = "0";  // a budget of nothing does not
  const auto config = parse_env_config(zero);
  ASSERT_FALSE(config.ok());
  EXPECT_NE(config.message().find("UCUDNN_TOTAL_WORKSPACE_SIZE: "), std::string::npos) << config.message();
}

// ---- one rule for duplicate rows, in `plan` and `db import`: refused ----------------------------

TEST_F(ParserHardening, PlanRefusesDuplicateRows) {
  const std::string csv = dir_.write("twice.csv", "k,fwd,1,0,0,2.0,0\nk,fwd,1,0,0,1.0,0\n");
  expect_error(plan_args(csv, "64MiB"), kExitDataError, csv + ":2: duplicate row");
  expect_error(plan_args(csv, "64MiB"), kExitDataError, "(first at line 1)");
}

TEST_F(ParserHardening, DbImportRefusesDuplicateRows) {
  const std::string csv = dir_.write("twice.csv",
                                     std::string(kHeader) +
                                         "alex_conv1,fwd,1,0,0,2.0,0\n"
                                         "alex_conv1,fwd,1,0,0,1.0,0\n");
  const std::string db = (dir_.path() / "bench.db").string();
  expect_error({"db", "import", csv, "--database", db, "--network", "alexnet", "--gpu-name", "NVIDIA H100",
                "--compute-capability", "90", "--sm-count", "132", "--cudnn-version", "91400", "--cuda-version",
                "13000"},
               kExitDataError, csv + ":3: duplicate row for alex_conv1 fwd micro-batch 1 algo 0 math_type 0 "
                               "(first at line 2)");
}

}  // namespace
}  // namespace ucudnn::testing
