// `ucudnn plan` under workspace reuse, in-process through run_cli: its output, its size options (a
// size too large, a bare number below 1 MiB and a zero budget refused) and the tables it refuses
// (workspace division and Pareto fronts: test_plan_command_wd.cpp; the real binary:
// test_cli_binary.cpp).

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "core/batch_policy.h"
#include "core/conv_op.h"
#include "core/measurement_csv.h"
#include "optimize/wr_optimizer.h"
#include "plan_command_support.h"
#include "tools/cli.h"

namespace ucudnn::testing {
using tools::kExitDataError;
using tools::kExitOk;
using tools::kExitUsageError;
namespace {

TEST_F(PlanCommand, TableHasARowForEveryKernelAndATotal) {
  const CliResult result = run(plan_args(alexnet_, "64MiB"));
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(result.err.empty()) << result.err;
  const auto kernels = read_measurements_csv(alexnet_);
  ASSERT_TRUE(kernels.ok());
  const auto lines = lines_of(result.out);
  for (const auto& kernel : *kernels) {
    const auto found = std::count_if(lines.begin(), lines.end(), [&](const std::string& line) {
      const auto words = split_words(line);
      return words.size() > 2 && words[0] == kernel.layer && words[1] == short_name(kernel.op) &&
             words[2] == std::to_string(kernel.batch);
    });
    EXPECT_EQ(found, 1) << kernel.layer << " " << short_name(kernel.op);
  }
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(split_words(lines.back()).at(0), "total");
}

TEST_F(PlanCommand, TableColumnsLineUp) {
  const CliResult result = run(plan_args(alexnet_, "64MiB"));
  ASSERT_EQ(result.status, 0) << result.err;
  const auto lines = lines_of(result.out);
  const auto header = std::find_if(lines.begin(), lines.end(), [](const std::string& line) {
    return line.rfind("layer", 0) == 0;
  });
  ASSERT_NE(header, lines.end()) << result.out;
  // Right-aligned numbers end under the end of their title; micro-batches start under theirs.
  const std::size_t planned_end = header->find("planned ms") + std::string("planned ms").size();
  const std::size_t speedup_end = header->find("speedup") + std::string("speedup").size();
  const std::size_t runs_start = header->find("micro-batches");
  ASSERT_NE(runs_start, std::string::npos);
  for (auto line = header + 1; line != lines.end(); ++line) {
    ASSERT_GE(line->size(), speedup_end) << *line;
    EXPECT_TRUE(std::isdigit(static_cast<unsigned char>((*line)[planned_end - 1]))) << *line;
    EXPECT_EQ((*line)[planned_end], ' ') << *line;
    EXPECT_EQ((*line)[speedup_end - 1], 'x') << *line;
    if (line->rfind("total", 0) != 0) {
      ASSERT_GT(line->size(), runs_start) << *line;
      EXPECT_NE(line->find(" x ", runs_start), std::string::npos) << *line;
      EXPECT_TRUE(std::isdigit(static_cast<unsigned char>((*line)[runs_start]))) << *line;
    }
  }
}

TEST_F(PlanCommand, TableAndJsonDescribeTheSamePlan) {
  const CliResult table = run(plan_args(alexnet_, "64MiB"));
  ASSERT_EQ(table.status, 0) << table.err;
  const Json json = plan_json(plan_args(alexnet_, "64MiB"));
  const auto lines = lines_of(table.out);
  for (const auto& kernel : json["kernels"]) {
    const auto op = parse_conv_op(kernel["op"].get<std::string>());
    ASSERT_TRUE(op.has_value());
    std::string runs;
    for (const auto& run : kernel["micro_batches"]) {
      if (!runs.empty()) runs += " + ";
      runs += std::to_string(run["count"].get<int>()) + " x " +
              std::to_string(run["size"].get<int>()) + " " + algo_name(*op, run["algo"].get<int>());
    }
    const auto row = std::find_if(lines.begin(), lines.end(), [&](const std::string& line) {
      const auto words = split_words(line);
      return words.size() > 1 && words[0] == kernel["layer"] && words[1] == kernel["op"];
    });
    ASSERT_NE(row, lines.end()) << kernel.dump();
    EXPECT_GE(row->size(), runs.size());
    EXPECT_EQ(row->substr(row->size() - std::min(row->size(), runs.size())), runs) << *row;
  }
  const auto total = split_words(lines.back());
  ASSERT_GE(total.size(), 3u);
  EXPECT_NEAR(std::stod(total[1]), json["undivided_total_time_ms"].get<double>(), 5e-4);
  EXPECT_NEAR(std::stod(total[2]), json["total_time_ms"].get<double>(), 5e-4);
}

TEST_F(PlanCommand, JsonHasExactlyTheDocumentedKeys) {
  const Json json = plan_json(plan_args(alexnet_, "64MiB"));
  ASSERT_TRUE(json.is_object());
  EXPECT_EQ(keys(json), (std::vector<std::string>{"mode", "policy", "kernels", "total_time_ms",
                                                  "undivided_total_time_ms"}));
  EXPECT_EQ(json["mode"], "wr");
  EXPECT_EQ(json["policy"], "powerOfTwo");
  ASSERT_TRUE(json["kernels"].is_array());
  ASSERT_FALSE(json["kernels"].empty());
  for (const auto& kernel : json["kernels"]) {
    EXPECT_EQ(keys(kernel),
              (std::vector<std::string>{"layer", "op", "batch", "time_ms", "undivided_time_ms",
                                        "workspace_bytes", "micro_batches"}));
    EXPECT_TRUE(kernel["layer"].is_string());
    EXPECT_TRUE(kernel["batch"].is_number_integer());
    EXPECT_TRUE(kernel["time_ms"].is_number());
    EXPECT_TRUE(kernel["workspace_bytes"].is_number_unsigned());
    ASSERT_TRUE(kernel["micro_batches"].is_array());
    ASSERT_FALSE(kernel["micro_batches"].empty());
    for (const auto& run : kernel["micro_batches"]) {
      EXPECT_EQ(keys(run), (std::vector<std::string>{"size", "algo", "count"}));
    }
  }
}

TEST_F(PlanCommand, AlexNetAt64MiBAgreesWithTheTable) {
  const Json json = plan_json(plan_args(alexnet_, "64MiB"));
  const auto kernels = read_measurements_csv(alexnet_);
  ASSERT_TRUE(kernels.ok());
  ASSERT_EQ(json["kernels"].size(), kernels->size());
  const auto allowed = allowed_micro_batch_sizes(BatchSizePolicy::kPowerOfTwo, 256);
  double planned_sum = 0.0;
  double undivided_sum = 0.0;
  for (std::size_t i = 0; i < kernels->size(); ++i) {
    const KernelMeasurements& kernel = (*kernels)[i];
    const Json& entry = json["kernels"][i];
    SCOPED_TRACE(kernel.layer + " " + short_name(kernel.op));
    EXPECT_EQ(entry["layer"], kernel.layer);  // file order
    EXPECT_EQ(entry["op"], short_name(kernel.op));
    EXPECT_EQ(entry["batch"], kernel.batch);
    EXPECT_LE(entry["workspace_bytes"].get<std::size_t>(), kLimit64MiB);

    expect_micro_batches_match_table(entry, kernel, allowed, kLimit64MiB);
    const double undivided = measured_time(kernel, kernel.batch, -1, kLimit64MiB);
    EXPECT_NEAR(entry["undivided_time_ms"].get<double>(), undivided, 1e-6);
    EXPECT_LE(entry["time_ms"].get<double>(), entry["undivided_time_ms"].get<double>());
    planned_sum += entry["time_ms"].get<double>();
    undivided_sum += entry["undivided_time_ms"].get<double>();
  }
  EXPECT_NEAR(json["total_time_ms"].get<double>(), planned_sum, 1e-6);
  EXPECT_NEAR(json["undivided_total_time_ms"].get<double>(), undivided_sum, 1e-6);
  // The recorded AlexNet table plans to ~21 ms against ~64 ms undivided, rounded to whole milliseconds.
  EXPECT_NEAR(planned_sum, 21.0, 1.0);
  EXPECT_NEAR(undivided_sum, 64.0, 2.0);
}

TEST_F(PlanCommand, SizeSpellingsGiveTheSamePlan) {
  const Json mib = plan_json(plan_args(alexnet_, "64MiB"));
  EXPECT_EQ(plan_json(plan_args(alexnet_, "67108864")), mib);
  EXPECT_EQ(plan_json(plan_args(alexnet_, "64 mib")), mib);
  EXPECT_EQ(plan_json(plan_args(alexnet_, "64M")), mib);
  EXPECT_EQ(plan_json(plan_args(alexnet_, "0.0625G")), mib);
  EXPECT_EQ(plan_json({"plan", "--measurements=" + alexnet_, "--workspace-limit=64MiB"}), mib);
  EXPECT_NE(plan_json(plan_args(alexnet_, "8MiB")), mib);
}

// ---- sizes too large or too small to be meant ----------------------------------------------------

TEST_F(PlanCommand, HugeSizeOptionIsAUsageErrorNamingTheOption) {
  expect_error(plan_args(alexnet_, kHugeNumber), kExitUsageError, "--workspace-limit: ");
  expect_error(plan_args(alexnet_, kHugeNumber), kExitUsageError, "out of range");
  expect_error(wd_args(alexnet_, kHugeNumber), kExitUsageError, "--total-workspace: ");
  expect_error(wd_args(alexnet_, kHugeNumber + "MiB"), kExitUsageError, "out of range");
}

// The original μ-cuDNN took megabytes; here a bare number is bytes, and one below 1 MiB a likely slip.
TEST_F(PlanCommand, BareSmallSizeIsRefusedByEverySizeOption) {
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

TEST_F(PlanCommand, ZeroTotalWorkspaceIsRefused) {
  for (const char* zero : {"0", "0MiB", "0 B"}) {
    expect_error(wd_args(alexnet_, zero), kExitUsageError, "--total-workspace: ");
    expect_error(wd_args(alexnet_, zero), kExitUsageError, "more than 0 bytes");
  }
}

TEST_F(PlanCommand, PolicyChoosesTheMicroBatchSizes) {
  // Micro-batches of 3 are fast, but only `all` may use them.
  const std::string csv = dir_.write("six.csv",
                                     "k,fwd,1,0,0,1.0,0\n"
                                     "k,fwd,2,0,0,2.0,0\n"
                                     "k,fwd,3,1,0,1.0,0\n"
                                     "k,fwd,4,0,0,4.0,0\n"
                                     "k,fwd,6,0,0,6.0,0\n");
  const Json all = plan_json(with(plan_args(csv, "0"), {"--policy", "all"}));
  EXPECT_EQ(all["policy"], "all");
  ASSERT_EQ(all["kernels"].size(), 1u);
  EXPECT_DOUBLE_EQ(all["kernels"][0]["time_ms"].get<double>(), 2.0);
  EXPECT_EQ(all["kernels"][0]["micro_batches"],
            Json::parse(R"([{"size":3,"algo":1,"count":2}])"));

  const Json power = plan_json(with(plan_args(csv, "0"), {"--policy", "power_of_two"}));
  EXPECT_EQ(power["policy"], "powerOfTwo");  // the canonical spelling
  EXPECT_DOUBLE_EQ(power["kernels"][0]["time_ms"].get<double>(), 6.0);
  // Six calls of one image tie with one call of six: fewer calls win.
  EXPECT_EQ(power["kernels"][0]["micro_batches"],
            Json::parse(R"([{"size":6,"algo":0,"count":1}])"));
}

TEST_F(PlanCommand, UndividedPolicyReproducesPlainCudnn) {
  const Json json = plan_json(with(plan_args(alexnet_, "64MiB"), {"--policy", "UNDIVIDED"}));
  EXPECT_EQ(json["policy"], "undivided");
  for (const auto& kernel : json["kernels"]) {
    ASSERT_EQ(kernel["micro_batches"].size(), 1u);
    EXPECT_EQ(kernel["micro_batches"][0]["size"], kernel["batch"]);
    EXPECT_EQ(kernel["micro_batches"][0]["count"], 1);
    EXPECT_EQ(kernel["time_ms"], kernel["undivided_time_ms"]);
  }
  EXPECT_EQ(json["total_time_ms"], json["undivided_total_time_ms"]);
}

TEST_F(PlanCommand, HelpGoesToOutAndSucceeds) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--help"}, {"-h"}}) {
    const CliResult result = run(args);
    EXPECT_EQ(result.status, 0);
    EXPECT_TRUE(result.err.empty()) << result.err;
    EXPECT_NE(result.out.find("plan"), std::string::npos) << result.out;
  }
  const CliResult plan_help = run({"plan", "--help"});
  EXPECT_EQ(plan_help.status, 0);
  EXPECT_TRUE(plan_help.err.empty()) << plan_help.err;
  EXPECT_NE(plan_help.out.find("--measurements"), std::string::npos) << plan_help.out;
  EXPECT_NE(plan_help.out.find("--workspace-limit"), std::string::npos) << plan_help.out;
  EXPECT_NE(plan_help.out.find("--policy"), std::string::npos) << plan_help.out;
}

TEST_F(PlanCommand, UsageErrorsAreOneLineWithStatus2) {
  const int usage = kExitUsageError;
  expect_error({}, usage, "subcommand");
  expect_error({"bogus"}, usage, "'bogus'");
  // (What plan says without measurements, and of words that name nothing: test_plan_inputs.cpp.)
  expect_error({"plan", "--workspace-limit", "1"}, usage, "--workspace-limit: 1 bytes is less than 1 MiB");
  expect_error({"plan", "--measurements", ""}, usage, "--measurements: an empty name");
  expect_error({"plan", "--measurements", alexnet_, "--workspace-limit"}, usage,
               "--workspace-limit");
  expect_error(with(plan_args(alexnet_, "64MiB"), {"--foo"}), usage, "--foo");
  expect_error(with(plan_args(alexnet_, "64MiB"), {"extra"}), usage,
               "'extra' is neither a file nor a built-in network");
  expect_error(plan_args(alexnet_, "12XB"), usage, "'12XB'");
  expect_error(plan_args(alexnet_, "64MB"), usage,
               "--workspace-limit: '64MB' is ambiguous (MB is 2^20 bytes to some frameworks, 10^6 to SI): write "
               "64MiB (67108864 bytes) or a number of bytes");
  expect_error({"plan", "--measurements", alexnet_, "--total-workspace", "120MB"}, usage,
               "--total-workspace: '120MB' is ambiguous");
  expect_error(plan_args(alexnet_, "1.5"), usage, "'1.5'");
  expect_error(plan_args(alexnet_, "-1"), usage, "'-1'");
  expect_error(plan_args(alexnet_, ""), usage, "--workspace-limit");
  expect_error(with(plan_args(alexnet_, "64MiB"), {"--policy", "half"}), usage, "'half'");
  expect_error(with(plan_args(alexnet_, "64MiB"), {"--policy"}), usage, "--policy");
}

TEST_F(PlanCommand, DataErrorsAreOneLineWithStatus1) {
  const int data = kExitDataError;
  const std::string missing = (dir_.path() / "missing.csv").string();
  expect_error(plan_args(missing, "64MiB"), data, missing);
  expect_error(plan_args(dir_.path().string(), "64MiB"), data, "directory");

  const std::string bad_time =
      dir_.write("bad_time.csv", "k,fwd,1,0,0,0.5,0\nk,fwd,2,0,0,soon,0\n");
  expect_error(plan_args(bad_time, "64MiB"), data, bad_time + ":2: invalid time_ms 'soon'");
  const std::string bad_op = dir_.write("bad_op.csv", "k,conv,1,0,0,0.5,0\n");
  expect_error(plan_args(bad_op, "64MiB"), data, bad_op + ":1: unknown op 'conv'");
  const std::string short_row = dir_.write("short.csv", "k,fwd,1,0,0\n");
  expect_error(plan_args(short_row, "64MiB"), data, short_row + ":1:");
  const std::string empty = dir_.write("empty.csv", "");
  expect_error(plan_args(empty, "64MiB"), data, "no measurement rows");
}

TEST_F(PlanCommand, KernelWithoutAnAlgorithmWithinTheLimitIsAnError) {
  // The first kernel is fine; the second fits only below its full batch. Nothing is printed.
  const std::string csv = dir_.write("tight.csv",
                                     "ok,fwd,4,0,0,1.0,0\n"
                                     "big,bwdf,1,0,0,0.5,0\n"
                                     "big,bwdf,4,1,0,1.0,2048\n");
  expect_error(plan_args(csv, "1KiB"), kExitDataError,
               "kernel big bwdf: no algorithm within the workspace limit of 1 KiB");
  const CliResult roomy = run(plan_args(csv, "2KiB"));
  EXPECT_EQ(roomy.status, 0) << roomy.err;
}

TEST_F(PlanCommand, ErrorsWithLineBreaksStayOnOneLine) {
  const std::string missing = (dir_.path() / "two\nlines.csv").string();
  expect_error(plan_args(missing, "64MiB"), kExitDataError, "lines.csv");
}

// ---- micro-batch sizes have a stated maximum ----------------------------------------------------

TEST_F(PlanCommand, PlanRefusesAMicroBatchAboveTheMaximum) {
  const std::string csv = dir_.write("huge.csv", "k,fwd,65537,0,0,1.0,0\n");
  expect_error(plan_args(csv, "64MiB"), kExitDataError, csv + ":1: invalid microbatch '65537'");
}

// ---- names that are not UTF-8 are refused where they are read -----------------------------------

TEST_F(PlanCommand, JsonPlanOfANonUtf8LayerIsADataErrorNamingTheLine) {
  const std::string csv = dir_.write("latin1.csv", "conv\xe9,fwd,1,0,0,1.0,0\n");
  expect_error({"plan", "--measurements", csv, "--workspace-limit", "64MiB", "--json"}, kExitDataError,
               csv + ":1: layer name is not valid UTF-8");
}

// ---- no nonsense numbers or NUL bytes -----------------------------------------------------------

TEST_F(PlanCommand, HugeTimesGiveNoInfiniteOrNullTotals) {
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

TEST_F(PlanCommand, PlanPrintsNoNegativeZeroTime) {
  const std::string csv = dir_.write("minus_zero.csv", "k,fwd,1,0,0,-0,0\nk,fwd,2,0,0,-0.000,0\n");
  const CliResult table = run(plan_args(csv, "0"));
  ASSERT_EQ(table.status, kExitOk) << table.err;
  EXPECT_EQ(table.out.find("-0"), std::string::npos) << table.out;
}

TEST_F(PlanCommand, PlanRefusesANulByteNamingFileAndLine) {
  const std::string csv = dir_.write("nul.csv", bytes("k,fwd,1,0,0,5\0"
                                                      "999,0\n"));
  expect_error(plan_args(csv, "64MiB"), kExitDataError, csv + ":1: ");
}

// ---- one rule for duplicate rows, in `plan` and `db import`: refused ----------------------------
// (db import's test: DbCommand.DbImportRefusesDuplicateRows)

TEST_F(PlanCommand, PlanRefusesDuplicateRows) {
  const std::string csv = dir_.write("twice.csv", "k,fwd,1,0,0,2.0,0\nk,fwd,1,0,0,1.0,0\n");
  expect_error(plan_args(csv, "64MiB"), kExitDataError, csv + ":2: duplicate row");
  expect_error(plan_args(csv, "64MiB"), kExitDataError, "(first at line 1)");
}

// Workspace division: `--total-workspace` instead of `--workspace-limit`.


// ---- engine configurations and --candidates ---------------------------------------------------

// Undivided, legacy algorithms and engines tie; split, a legacy micro-batch of 4 and an engine
// one of 2 beat both kinds alone (legacy alone cannot cover 6 without its undivided row).
const char kMixedTable[] =
    "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes,engine\n"
    "k,fwd,6,0,0,10.0,0,\n"
    "k,fwd,4,1,0,1.0,0,\n"
    "k,fwd,6,-1,0,10.0,0,\"eng12:k3=1,k17=0\"\n"
    "k,fwd,2,-1,0,0.6,0,\"eng12:k3=1,k17=0\"\n";

TEST_F(PlanCommand, EngineRunsShowTheirConfigurationId) {
  const std::string csv = dir_.write("mixed.csv", kMixedTable);
  const auto args = with(plan_args(csv, "0"), {"--policy", "all"});
  const Json json = plan_json(args);
  ASSERT_EQ(json["kernels"].size(), 1u);
  EXPECT_DOUBLE_EQ(json["kernels"][0]["time_ms"].get<double>(), 1.6);
  EXPECT_EQ(
      json["kernels"][0]["micro_batches"],
      Json::parse(R"([{"size":4,"algo":1,"count":1},{"size":2,"algo":-1,"engine":"eng12:k3=1,k17=0","count":1}])"));
  const CliResult table = run(args);
  ASSERT_EQ(table.status, 0) << table.err;
  const std::string runs = "1 x 4 " + algo_name(ConvOp::kForward, 1) + " + 1 x 2 eng12:k3=1,k17=0";
  EXPECT_NE(table.out.find(runs), std::string::npos) << table.out;

  // The front lists the undivided candidates of both kinds, an engine by its id.
  const Json front = plan_json({"plan", "--measurements", csv, "--pareto", "k:fwd", "--policy", "all"});
  ASSERT_EQ(front["undivided"].size(), 2u) << front.dump();
  std::set<std::string> names;
  for (const auto& entry : front["undivided"]) names.insert(entry["algo_name"].get<std::string>());
  EXPECT_EQ(names, (std::set<std::string>{algo_name(ConvOp::kForward, 0), "eng12:k3=1,k17=0"}));
  for (const auto& entry : front["undivided"]) {
    if (entry["algo"] == -1) {
      EXPECT_EQ(entry["engine"], "eng12:k3=1,k17=0") << entry.dump();
    } else {
      EXPECT_FALSE(entry.contains("engine")) << entry.dump();
    }
  }
}

TEST_F(PlanCommand, CandidatesChooseTheRowsPlannedFrom) {
  const std::string csv = dir_.write("mixed.csv", kMixedTable);
  const auto args = with(plan_args(csv, "0"), {"--policy", "all"});
  const Json both = plan_json(with(args, {"--candidates", "both"}));
  EXPECT_EQ(both, plan_json(args)) << "both is the default";
  const Json legacy = plan_json(with(args, {"--candidates", "legacy"}));
  EXPECT_DOUBLE_EQ(legacy["kernels"][0]["time_ms"].get<double>(), 10.0);
  EXPECT_EQ(legacy["kernels"][0]["micro_batches"], Json::parse(R"([{"size":6,"algo":0,"count":1}])"));
  const Json engines = plan_json(with(args, {"--candidates", "ENGINES"}));
  EXPECT_DOUBLE_EQ(engines["kernels"][0]["time_ms"].get<double>(), 1.8);
  EXPECT_EQ(engines["kernels"][0]["micro_batches"],
            Json::parse(R"([{"size":2,"algo":-1,"engine":"eng12:k3=1,k17=0","count":3}])"));
  EXPECT_DOUBLE_EQ(engines["kernels"][0]["undivided_time_ms"].get<double>(), 10.0);

  // Division and the front take the option too.
  const Json wd = plan_json(
      {"plan", "--measurements", csv, "--total-workspace", "1MiB", "--policy", "all", "--candidates", "legacy"});
  EXPECT_DOUBLE_EQ(wd["total_time_ms"].get<double>(), 10.0);
  const Json front =
      plan_json({"plan", "--measurements", csv, "--pareto", "k:fwd", "--policy", "all", "--candidates", "engines"});
  ASSERT_EQ(front["undivided"].size(), 1u);
  EXPECT_EQ(front["undivided"][0]["algo"], -1);

  // A table without rows of the set asked for, and a set that does not exist.
  expect_error(with(plan_args(alexnet_, "64MiB"), {"--candidates", "engines"}), kExitDataError,
               "kernel alex_conv1 fwd: no rows of the candidates 'engines'");
  expect_error(with(plan_args(alexnet_, "64MiB"), {"--candidates", "some"}), kExitUsageError,
               "--candidates: unknown candidate set 'some'");
  expect_error(with(wd_args(alexnet_, "120MiB"), {"--candidates", ""}), kExitUsageError, "--candidates");
  EXPECT_NE(run({"plan", "--help"}).out.find("--candidates"), std::string::npos);
}

}  // namespace
}  // namespace ucudnn::testing
