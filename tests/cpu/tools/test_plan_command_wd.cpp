// `ucudnn plan` under workspace division (--total-workspace) and its Pareto fronts (--pareto), both
// quick on a table of 100,000 rows with as many workspaces.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "core/batch_policy.h"
#include "core/conv_op.h"
#include "core/measurement_csv.h"
#include "core/row_rules.h"
#include "optimize/wr_optimizer.h"
#include "plan_command_support.h"
#include "tools/cli.h"

namespace ucudnn::testing {
using tools::kExitDataError;
using tools::kExitOk;
using tools::kExitUsageError;
namespace {

TEST_F(PlanCommand, WdJsonHasTheDocumentedKeysAndAgreesWithTheTable) {
  const Json json = plan_json(wd_args(alexnet_, "120MiB"));
  ASSERT_TRUE(json.is_object());
  EXPECT_EQ(keys(json),
            (std::vector<std::string>{"mode", "policy", "total_workspace_bytes", "undivided_workspace_bytes", "kernels",
                                      "total_time_ms", "undivided_total_time_ms", "workspace_used_bytes", "variables",
                                      "solve_ms", "optimal", "gap"}));
  EXPECT_EQ(json["mode"], "wd");
  EXPECT_EQ(json["policy"], "powerOfTwo");
  const std::size_t budget = std::size_t{120} << 20;
  EXPECT_EQ(json["total_workspace_bytes"].get<std::size_t>(), budget);

  const auto kernels = read_measurements_csv(alexnet_);
  ASSERT_TRUE(kernels.ok());
  ASSERT_EQ(json["kernels"].size(), kernels->size());
  const auto allowed = allowed_micro_batch_sizes(BatchSizePolicy::kPowerOfTwo, 256);
  // The baseline: each kernel undivided within an equal share of the budget.
  const std::size_t share = budget / kernels->size();
  EXPECT_EQ(json["undivided_workspace_bytes"].get<std::size_t>(), share);
  double time_sum = 0.0;
  double undivided_sum = 0.0;
  std::size_t workspace_sum = 0;
  int configurations = 0;
  for (std::size_t i = 0; i < kernels->size(); ++i) {
    const KernelMeasurements& kernel = (*kernels)[i];
    const Json& entry = json["kernels"][i];
    SCOPED_TRACE(kernel.layer + " " + short_name(kernel.op));
    EXPECT_EQ(keys(entry), (std::vector<std::string>{"layer", "op", "batch", "time_ms", "undivided_time_ms",
                                                     "workspace_bytes", "micro_batches", "desirable_configurations"}));
    const double undivided = measured_time(kernel, kernel.batch, -1, share);
    EXPECT_NEAR(entry["undivided_time_ms"].get<double>(), undivided, 1e-6);
    undivided_sum += undivided;
    EXPECT_EQ(entry["layer"], kernel.layer);  // file order
    EXPECT_EQ(entry["op"], short_name(kernel.op));
    EXPECT_EQ(entry["batch"], kernel.batch);
    EXPECT_TRUE(entry["workspace_bytes"].is_number_unsigned());
    EXPECT_GE(entry["desirable_configurations"].get<int>(), 1);

    // The micro-batches cover the batch with the fastest rows within the kernel's share.
    const std::size_t share = entry["workspace_bytes"];
    expect_micro_batches_match_table(entry, kernel, allowed, share);
    time_sum += entry["time_ms"].get<double>();
    workspace_sum += share;
    configurations += entry["desirable_configurations"].get<int>();
  }
  EXPECT_NEAR(json["total_time_ms"].get<double>(), time_sum, 1e-6);
  EXPECT_NEAR(json["undivided_total_time_ms"].get<double>(), undivided_sum, 1e-6);
  EXPECT_EQ(json["workspace_used_bytes"].get<std::size_t>(), workspace_sum);
  EXPECT_LE(workspace_sum, budget);
  EXPECT_EQ(json["variables"].get<int>(), configurations);
  EXPECT_GE(json["solve_ms"].get<double>(), 0.0);
}

TEST_F(PlanCommand, WdBeatsWrWithTheSameMemory) {
  // 15 kernels: 120 MiB divided by need against 8 MiB for each.
  const Json wd = plan_json(wd_args(alexnet_, "120MiB"));
  const Json wr = plan_json(plan_args(alexnet_, "8MiB"));
  EXPECT_LT(wd["total_time_ms"].get<double>(), wr["total_time_ms"].get<double>());
  // More budget never hurts; the policy applies as in WR.
  const Json roomy = plan_json(wd_args(alexnet_, "1GiB"));
  EXPECT_LE(roomy["total_time_ms"].get<double>(), wd["total_time_ms"].get<double>());
  const Json undivided = plan_json(with(wd_args(alexnet_, "120MiB"), {"--policy", "undivided"}));
  EXPECT_EQ(undivided["policy"], "undivided");
  for (const auto& kernel : undivided["kernels"]) {
    ASSERT_EQ(kernel["micro_batches"].size(), 1u);
    EXPECT_EQ(kernel["micro_batches"][0]["size"], kernel["batch"]);
  }
  EXPECT_GE(undivided["total_time_ms"].get<double>(), wd["total_time_ms"].get<double>());
}

// WD's table has WR's columns (undivided and planned time, speedup), and the configurations.
TEST_F(PlanCommand, WdTableHasARowPerKernelATotalAndTheSolver) {
  const CliResult result = run(wd_args(alexnet_, "120MiB"));
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(result.err.empty()) << result.err;
  const auto lines = lines_of(result.out);
  ASSERT_GE(lines.size(), 5u);
  EXPECT_EQ(lines[0], "WD plan, policy powerOfTwo, total workspace 120 MiB, 15 kernels");
  EXPECT_EQ(
      lines[1].rfind("undivided: each kernel's whole batch in one call within an equal share of the budget, 8 MiB", 0),
      0u)
      << lines[1];
  EXPECT_EQ(split_words(lines[2]), (std::vector<std::string>{"layer", "op", "batch", "undivided", "ms", "planned", "ms",
                                                             "speedup", "workspace", "configs", "micro-batches"}));
  const Json json = plan_json(wd_args(alexnet_, "120MiB"));
  const auto ratio = [](double undivided, double planned) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2fx", undivided / planned);
    return std::string(text);
  };
  for (const auto& kernel : json["kernels"]) {
    const auto found = std::count_if(lines.begin(), lines.end(), [&](const std::string& line) {
      const auto words = split_words(line);
      // layer, op, batch, undivided, planned, speedup, workspace (number and unit), configurations, micro-batches
      return words.size() > 9 && words[0] == kernel["layer"] && words[1] == kernel["op"] &&
             words[2] == std::to_string(kernel["batch"].get<int>()) &&
             std::abs(std::stod(words[3]) - kernel["undivided_time_ms"].get<double>()) < 5e-4 &&
             std::abs(std::stod(words[4]) - kernel["time_ms"].get<double>()) < 5e-4 &&
             words[5] == ratio(kernel["undivided_time_ms"].get<double>(), kernel["time_ms"].get<double>()) &&
             words[8] == std::to_string(kernel["desirable_configurations"].get<int>());
    });
    EXPECT_EQ(found, 1) << kernel.dump();
  }
  const auto total = split_words(lines[lines.size() - 2]);
  ASSERT_GE(total.size(), 4u);
  EXPECT_EQ(total[0], "total");
  EXPECT_NEAR(std::stod(total[1]), json["undivided_total_time_ms"].get<double>(), 5e-4);
  EXPECT_NEAR(std::stod(total[2]), json["total_time_ms"].get<double>(), 5e-4);
  EXPECT_EQ(total[3], ratio(json["undivided_total_time_ms"].get<double>(), json["total_time_ms"].get<double>()));
  EXPECT_EQ(lines.back().rfind("workspace used ", 0), 0u) << lines.back();
  EXPECT_NE(lines.back().find(" of 120 MiB; " + std::to_string(json["variables"].get<int>()) +
                              " variables, solved in "),
            std::string::npos)
      << lines.back();
}

// (Neither given: the library's mode, test_plan_inputs.cpp.)
TEST_F(PlanCommand, AtMostOneOfWorkspaceLimitAndTotalWorkspace) {
  const int usage = kExitUsageError;
  expect_error({"plan", "--measurements", alexnet_, "--workspace-limit", "8MiB",
                "--total-workspace", "120MiB"},
               usage, "--workspace-limit, --total-workspace and --pareto exclude each other");
  expect_error({"plan", "--measurements", alexnet_, "--workspace-limit", "8MiB", "--pareto", "alex_conv2:fwd"},
               usage, "exclude each other");
  expect_error({"plan", "--measurements", alexnet_, "--total-workspace"}, usage,
               "--total-workspace");
  expect_error(wd_args(alexnet_, ""), usage, "--total-workspace");
  expect_error(wd_args(alexnet_, "lots"), usage, "--total-workspace: invalid size 'lots'");
  expect_error(with(wd_args(alexnet_, "120MiB"), {"--policy", "half"}), usage, "'half'");
  const CliResult help = run({"plan", "--help"});
  EXPECT_NE(help.out.find("--total-workspace"), std::string::npos) << help.out;
}

// (A bare number below 1 MiB, and a zero budget: test_plan_command.cpp.) The same plan whatever the
// spelling; only the measured solve time differs.
TEST_F(PlanCommand, TotalWorkspaceInBytesOrMiBGivesTheSamePlan) {
  Json bytes = plan_json(wd_args(alexnet_, "125829120"));
  Json mib = plan_json(wd_args(alexnet_, "120MiB"));
  bytes.erase("solve_ms");
  mib.erase("solve_ms");
  EXPECT_EQ(bytes, mib);
}

TEST_F(PlanCommand, InfeasibleTotalWorkspaceIsADataError) {
  // Every AlexNet kernel has an algorithm without workspace; these two need 2 and 4 KiB.
  const std::string csv = dir_.write("hungry.csv",
                                     "a,fwd,2,1,0,0.5,1024\n"
                                     "a,fwd,4,1,0,1.0,2048\n"
                                     "b,bwdd,4,0,0,2.0,4096\n"
                                     "b,bwdd,4,1,0,1.0,8192\n");
  expect_error(wd_args(csv, "1KiB"), kExitDataError,
               "total workspace of 1 KiB is infeasible: the kernels need at least 5 KiB");
  const Json fits = plan_json(wd_args(csv, "5KiB"));
  EXPECT_EQ(fits["workspace_used_bytes"], 5120);
  EXPECT_DOUBLE_EQ(fits["total_time_ms"].get<double>(), 3.0);
  const Json roomy = plan_json(wd_args(csv, "9KiB"));
  EXPECT_EQ(roomy["workspace_used_bytes"], 9216);
  EXPECT_DOUBLE_EQ(roomy["total_time_ms"].get<double>(), 2.0);
}

// A kernel whose every algorithm needs more than the equal share at its whole batch has no baseline:
// "-" in the table (and for the total and its speedup), null in JSON; its plan is made all the same.
TEST_F(PlanCommand, WdBaselineWithoutAnAlgorithmWithinTheShareIsADash) {
  const std::string csv = dir_.write("share.csv",
                                     "a,fwd,4,0,0,3.0,6144\n"
                                     "a,fwd,2,0,0,1.0,2048\n"
                                     "b,bwdd,4,0,0,1.0,0\n");
  const Json json = plan_json(wd_args(csv, "6KiB"));
  EXPECT_EQ(json["undivided_workspace_bytes"], 3072);
  EXPECT_TRUE(json["kernels"][0]["undivided_time_ms"].is_null()) << json.dump();
  EXPECT_DOUBLE_EQ(json["kernels"][1]["undivided_time_ms"].get<double>(), 1.0);
  EXPECT_TRUE(json["undivided_total_time_ms"].is_null()) << json.dump();
  EXPECT_DOUBLE_EQ(json["kernels"][0]["time_ms"].get<double>(), 2.0);

  const CliResult table = run(wd_args(csv, "6KiB"));
  ASSERT_EQ(table.status, 0) << table.err;
  const auto lines = lines_of(table.out);
  const auto row = [&](const std::string& first) {
    for (const auto& line : lines) {
      const auto words = split_words(line);
      if (!words.empty() && words[0] == first) return words;
    }
    return std::vector<std::string>{};
  };
  EXPECT_EQ(row("a").at(3), "-");
  EXPECT_EQ(row("a").at(5), "-");
  EXPECT_EQ(row("b").at(3), "1.000");
  EXPECT_EQ(row("total").at(1), "-");
  EXPECT_EQ(row("total").at(3), "-");
}

// The front printed by --pareto is checked against a second, independent computation: the WR
// dynamic program under a limit equal to a point's workspace must find exactly that point's time.
TEST_F(PlanCommand, ParetoFrontMatchesWrPlansAtEachOfItsWorkspaces) {
  const auto kernels = read_measurements_csv(alexnet_);
  ASSERT_TRUE(kernels.ok());
  int checked_kernels = 0;
  for (const char* name : {"alex_conv2:fwd", "alex_conv1:bwdd", "alex_conv5:bwdf"}) {
    const Json front = plan_json({"plan", "--measurements", alexnet_, "--pareto", name});
    ASSERT_EQ(front["mode"], "pareto");
    ASSERT_GE(front["front"].size(), 2u) << name;
    const std::string layer = front["layer"], op = front["op"];
    double previous_time = std::numeric_limits<double>::infinity();
    long long previous_workspace = -1;
    for (const auto& point : front["front"]) {
      const long long workspace = point["workspace_bytes"];
      const double time = point["time_ms"];
      EXPECT_GT(workspace, previous_workspace) << name;
      EXPECT_LT(time, previous_time) << name;
      previous_workspace = workspace;
      previous_time = time;
      int covered = 0;
      for (const auto& run : point["micro_batches"]) covered += run["size"].get<int>() * run["count"].get<int>();
      EXPECT_EQ(covered, front["batch"].get<int>()) << name;
      const Json wr = plan_json(plan_args(alexnet_, std::to_string(workspace)));
      bool found = false;
      for (const auto& kernel : wr["kernels"]) {
        if (kernel["layer"] != layer || kernel["op"] != op) continue;
        found = true;
        const double planned = kernel["time_ms"].get<double>();
        if (std::abs(planned - time) <= 1e-9) continue;
        // The library's margin: where the whole batch undivided is predicted within
        // kSplitMargin of the split, the plan runs it undivided instead.
        EXPECT_EQ(kernel["micro_batches"].size(), 1u) << name << " at " << workspace << " B";
        EXPECT_GT(planned, time) << name << " at " << workspace << " B";
        EXPECT_LE(planned * (1.0 - ucudnn::optimize::kSplitMargin), time + 1e-9) << name << " at " << workspace << " B";
      }
      EXPECT_TRUE(found) << name;
    }
    // The fastest configuration beats (or ties) every single algorithm on the whole batch.
    ASSERT_FALSE(front["undivided"].empty());
    EXPECT_LE(previous_time, front["undivided"][0]["time_ms"].get<double>() + 1e-9) << name;
    ++checked_kernels;
  }
  EXPECT_EQ(checked_kernels, 3);
}

TEST_F(PlanCommand, ParetoTableListsTheFront) {
  const CliResult table = run({"plan", "--measurements", alexnet_, "--pareto", "alex_conv2:fwd"});
  ASSERT_EQ(table.status, 0) << table.err;
  const Json json = plan_json({"plan", "--measurements", alexnet_, "--pareto", "alex_conv2:fwd"});
  const auto lines = lines_of(table.out);
  ASSERT_EQ(lines.size(), json["front"].size() + 2) << table.out;  // title, header, one row each
  EXPECT_NE(lines[0].find("alex_conv2:fwd"), std::string::npos) << lines[0];
}

TEST_F(PlanCommand, ParetoOfAnUnknownOrMalformedKernelIsAnError) {
  expect_error({"plan", "--measurements", alexnet_, "--pareto", "alex_conv9:fwd"}, kExitDataError,
               "--pareto: the measurements have no kernel 'alex_conv9:fwd'");
  expect_error({"plan", "--measurements", alexnet_, "--pareto", "alex_conv2"}, kExitDataError,
               "is not LAYER:OP");
  expect_error({"plan", "--measurements", alexnet_, "--pareto", "alex_conv2:sideways"}, kExitDataError,
               "is not LAYER:OP");
}

// ---- planning cost is bounded by the rows, not the distinct workspaces --------------------------

const char kHeader[] = "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes\n";

// `plan --total-workspace` and `--pareto` over a table of 100,000 rows, each with its own workspace.
TEST_F(PlanCommand, DivisionAndParetoOfAHundredThousandRowsAreQuick) {
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
          text += "conv" + std::to_string(layer) + ",fwd," + std::to_string(size) + "," + std::to_string(algo) + "," +
                  std::to_string(math) + "," + std::to_string(time(random) * size) + "," + std::to_string(workspace) +
                  "\n";
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

}  // namespace
}  // namespace ucudnn::testing
