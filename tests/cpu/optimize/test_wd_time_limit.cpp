// Workspace division answers within a time limit, from the command line and the
// environment alike: the best plan found and its gap, or an error naming the limit.

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "core/env_config.h"
#include "core/units.h"
#include "optimize/pareto.h"

namespace ucudnn::testing {
namespace {

// 40 kernels whose fast configuration needs 1 to 2 TiB more workspace and saves the same time,
// under an odd budget: which ones fit is a subset sum, which GLPK's branch and bound searched for
// more than 300 s before the limit existed.
std::string terabyte_table(std::uint64_t* budget) {
  std::mt19937 rng(29);  // the instance of WdOptimizer.AHostileProgram...: hard for GLPK
  std::uint64_t smallest = 0, extras = 0;
  std::uniform_int_distribution<std::uint64_t> extra(std::uint64_t{1} << 40, std::uint64_t{1} << 41);
  std::string csv = "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes\n";
  for (int k = 0; k < 40; ++k) {
    const std::uint64_t small = (std::uint64_t{1} << 30) + static_cast<std::uint64_t>(k);
    const std::uint64_t more = extra(rng);
    const std::string layer = "k" + std::to_string(k);
    csv += layer + ",fwd,8,1,0,100," + std::to_string(small + more) + "\n";
    csv += layer + ",fwd,8,0,0,1100," + std::to_string(small) + "\n";
    smallest += small;
    extras += more;
  }
  *budget = (smallest + extras / 2) | 1;  // odd, half way: about half the kernels fit fast
  return csv;
}

TEST(WdTimeLimit, SecondsAreParsedStrictly) {
  EXPECT_DOUBLE_EQ(*parse_time_limit_seconds("10"), 10.0);
  EXPECT_DOUBLE_EQ(*parse_time_limit_seconds("0.5"), 0.5);
  EXPECT_DOUBLE_EQ(*parse_time_limit_seconds("2.5s"), 2.5);
  for (const char* bad : {"", "s", "-1", "0", "1e3", "0x10", " 1", "10 s", "1.2.3", "100000", "ten", "."}) {
    EXPECT_FALSE(parse_time_limit_seconds(bad).ok()) << "'" << bad << "'";
  }
  EXPECT_NE(parse_time_limit_seconds("ten").message().find("invalid time limit 'ten'"), std::string::npos);
}

TEST(WdTimeLimit, TheEnvironmentSetsItAndABadValueNamesTheVariable) {
  SettingValues values;
  values["UCUDNN_WD_TIME_LIMIT"] = "2.5";
  EXPECT_DOUBLE_EQ(parse_settings(values)->wd_time_limit_seconds, 2.5);
  EXPECT_DOUBLE_EQ(parse_settings(SettingValues{})->wd_time_limit_seconds, kDefaultWdTimeLimitSeconds);
  values["UCUDNN_WD_TIME_LIMIT"] = "forever";
  const auto bad = parse_settings(values);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message().rfind("UCUDNN_WD_TIME_LIMIT: ", 0), 0u) << bad.message();
}

TEST(WdTimeLimit, PlanAnswersAHostileTableWithinItsLimit) {
  TempDir dir;
  const auto table = dir.path() / "terabytes.csv";
  std::uint64_t bytes = 0;
  std::ofstream(table) << terabyte_table(&bytes);
  const std::string budget = std::to_string(bytes);
  const auto started = std::chrono::steady_clock::now();
  const auto result = run({"plan", "--measurements", table.string(), "--total-workspace", budget, "--time-limit",
                           "0.5"});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_LT(seconds, 60.0) << "a hang: the limit was 0.5 s";
  if (result.status == 0) {
    EXPECT_NE(result.out.find("not proven optimal: the time limit stopped the search"), std::string::npos)
        << result.out;
  } else {
    EXPECT_NE(result.err.find("time limit"), std::string::npos) << result.err;
  }
  // The same limit from the environment, in a process of its own.
  const auto from_environment =
      run_binary(dir, "plan --measurements '" + table.string() + "' --total-workspace " + budget + " --json",
                 "UCUDNN_WD_TIME_LIMIT=0.5");
  if (from_environment.status == 0) {
    EXPECT_NE(from_environment.out.find("\"optimal\":false"), std::string::npos) << from_environment.out;
  } else {
    EXPECT_NE(from_environment.err.find("time limit"), std::string::npos) << from_environment.err;
  }
}

// A kernel with rows at 3,000 micro-batch sizes, each with a workspace of its own: its front
// costs a WR solve per row (cubic in the sizes; 65,536 such sizes would take hours). The fronts
// answer to the limit too: an error naming it, where they ran to the end before.
TEST(WdTimeLimit, FrontsOfAHostileTableStopAtTheLimitNamingIt) {
  TempDir dir;
  std::string csv = "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes\n";
  for (int size = 1; size <= 3000; ++size) {
    csv += "c,fwd," + std::to_string(size) + ",1,0," + std::to_string(0.01 + size * 0.001) + "," +
           std::to_string(3000 - size) + "\n";
  }
  const std::string table = dir.write("sizes.csv", csv);
  const auto result = run({"plan", "--measurements", table, "--policy", "all", "--total-workspace", "1GiB",
                           "--time-limit", "0.01"});
  EXPECT_EQ(result.status, 1) << result.out;
  EXPECT_NE(result.err.find("kernel 1 of 1: workspace division: the kernels' fronts of (time, workspace) plans took "
                            "longer than the time limit of 0.01 s"),
            std::string::npos)
      << result.err;
}

TEST(WdTimeLimit, AFrontStopsAtAPassedDeadlineAndIsWholeBeforeIt) {
  std::vector<Measurement> rows;
  for (int size = 1; size <= 64; ++size) {
    Measurement m;
    m.micro_batch = size;
    m.candidate.algorithm = 1;
    m.time_ms = 0.5 + size;
    m.workspace_bytes = static_cast<std::size_t>(64 - size);
    rows.push_back(m);
  }
  std::vector<int> sizes(64);
  for (int i = 0; i < 64; ++i) sizes[i] = i + 1;
  optimize::FrontWork unbounded_work, later_work, passed_work;
  const auto unbounded = optimize::desirable_configurations(64, sizes, rows, &unbounded_work);
  const auto later = optimize::desirable_configurations(64, sizes, rows, &later_work,
                                                        std::chrono::steady_clock::now() + std::chrono::hours(1));
  const auto passed = optimize::desirable_configurations(64, sizes, rows, &passed_work,
                                                         std::chrono::steady_clock::now() - std::chrono::seconds(1));
  ASSERT_FALSE(unbounded.empty());
  EXPECT_FALSE(unbounded_work.past_deadline);
  EXPECT_EQ(later.size(), unbounded.size());
  EXPECT_FALSE(later_work.past_deadline);
  EXPECT_EQ(later_work.wr_solves, unbounded_work.wr_solves);
  EXPECT_TRUE(passed.empty());
  EXPECT_TRUE(passed_work.past_deadline);
}

TEST(WdTimeLimit, ABadLimitOptionIsAUsageErrorNamingIt) {
  testing::expect_error({"plan", "--measurements", UCUDNN_TEST_DATA_DIR "/h100-alexnet-b256-fp32.csv",
                         "--total-workspace", "120MiB", "--time-limit", "soon"},
                        2, "--time-limit: invalid time limit 'soon'");
}

}  // namespace
}  // namespace ucudnn::testing
