// `ucudnn plan` given what a newcomer gives it (issue 63): a file alone, a table or a database told
// apart by content; a network by name; nothing at all; a file that is neither. And the settings it
// takes what no option says from, as the library does (each tried in a process of its own).

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "core/env_config.h"
#include "core/measurement_csv.h"
#include "core/units.h"
#include "plan_command_support.h"
#include "test_helpers.h"
#include "tools/cli.h"

namespace ucudnn::testing {
using tools::kExitDataError;
using tools::kExitUsageError;
namespace {

namespace fs = std::filesystem;

// The settings plan reads, unset for the in-process runs (read once per process: each test runs
// in its own) and for the binary's.
const char kUnset[] =
    "env -u UCUDNN_DATABASE -u UCUDNN_DEFAULT_WORKSPACE_LIMIT -u UCUDNN_TOTAL_WORKSPACE_SIZE "
    "-u UCUDNN_BATCH_SIZE_POLICY -u UCUDNN_CANDIDATES";

class PlanInputs : public ::testing::Test {
 protected:
  // `db import` of `csv` into a new database `name` in the test's folder, as measured on `gpu`.
  std::string imported(const std::string& csv, const std::string& name, const std::string& network = "alexnet",
                       const std::string& gpu = "NVIDIA H100 80GB HBM3") const {
    const std::string db = (dir_.path() / name).string();
    const CliResult result =
        run({"db", "import", "--measurements", csv, "--database", db, "--network", network, "--gpu-name", gpu,
             "--compute-capability", "90", "--sm-count", "132", "--cudnn-version", "91400", "--cuda-version", "13000"});
    EXPECT_EQ(result.status, 0) << result.err;
    return db;
  }

  // The binary's JSON plan, under `environment` (after kUnset).
  Json binary_json(const std::string& arguments, const std::string& environment = "") const {
    const ProcessResult result = run_binary(dir_, arguments + " --json", std::string(kUnset) + " " + environment);
    EXPECT_EQ(result.status, 0) << result.err;
    EXPECT_TRUE(result.err.empty()) << result.err;
    return Json::parse(result.out.empty() ? "null" : result.out);
  }

  TempDir dir_;
  const std::string alexnet_ = alexnet_csv_path();
  const std::string quoted_alexnet_ = "'" + alexnet_ + "'";
  ScopedVariable no_database_{"UCUDNN_DATABASE", std::nullopt};
  ScopedVariable no_limit_{"UCUDNN_DEFAULT_WORKSPACE_LIMIT", std::nullopt};
  ScopedVariable no_total_{"UCUDNN_TOTAL_WORKSPACE_SIZE", std::nullopt};
  ScopedVariable no_policy_{"UCUDNN_BATCH_SIZE_POLICY", std::nullopt};
  ScopedVariable no_candidates_{"UCUDNN_CANDIDATES", std::nullopt};
};

// Plans under WD drop the solver's own time, which differs from run to run.
Json without_solve_time(Json plan) {
  plan.erase("solve_ms");
  return plan;
}

// ---- a file alone -------------------------------------------------------------------------------

TEST_F(PlanInputs, ATableAloneIsPlannedUnderTheLibrarysDefaultLimit) {
  const auto settings = parse_settings({});
  ASSERT_TRUE(settings.ok()) << settings.message();
  const std::string limit = std::to_string(settings->default_workspace_limit);
  const Json alone = plan_json({"plan", alexnet_});
  EXPECT_EQ(alone, plan_json({"plan", "--measurements", alexnet_, "--workspace-limit", limit}));
  EXPECT_NE(alone, plan_json(plan_args(alexnet_, "8MiB"))) << "the limit must make a difference here";

  const CliResult table = run({"plan", alexnet_});
  ASSERT_EQ(table.status, 0) << table.err;
  const auto lines = lines_of(table.out);
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines[0].find("workspace limit " + format_byte_size(settings->default_workspace_limit) +
                          " per kernel (UCUDNN_DEFAULT_WORKSPACE_LIMIT)"),
            std::string::npos)
      << lines[0];
}

TEST_F(PlanInputs, ADatabaseAloneIsPlannedAsTheTableItWasImportedFrom) {
  const std::string db = imported(alexnet_, "h100.db");
  EXPECT_EQ(plan_json({"plan", db}), plan_json({"plan", alexnet_}));
  EXPECT_EQ(plan_json({"plan", "--measurements", db, "--workspace-limit", "8MiB"}),
            plan_json(plan_args(alexnet_, "8MiB")));
  EXPECT_EQ(without_solve_time(plan_json(wd_args(db, "120MiB"))),
            without_solve_time(plan_json(wd_args(alexnet_, "120MiB"))));
  EXPECT_EQ(plan_json({"plan", db, "--pareto", "alex_conv2:fwd"}),
            plan_json({"plan", alexnet_, "--pareto", "alex_conv2:fwd"}));
  // Its rows are keyed by layer shape: the one built-in network those shapes make names them.
  const CliResult table = run({"plan", db});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_EQ(table.out.rfind("WR plan of alexnet, ", 0), 0u) << table.out;
}

TEST_F(PlanInputs, AFileIsToldApartByItsContentNotItsName) {
  const std::string db = imported(alexnet_, "h100.db");
  const std::string db_named_csv = (dir_.path() / "measurements.csv").string();
  const std::string csv_named_db = (dir_.path() / "table.db").string();
  fs::copy_file(db, db_named_csv);
  fs::copy_file(alexnet_, csv_named_db);
  const Json expected = plan_json({"plan", alexnet_});
  EXPECT_EQ(plan_json({"plan", db_named_csv}), expected);
  EXPECT_EQ(plan_json({"plan", csv_named_db}), expected);
}

TEST_F(PlanInputs, ADatabaseOfSeveralNetworksPlansTheBuiltInOneAndLeavesTheOthersOut) {
  const std::string net =
      dir_.write("tiny.json", R"({"name": "tiny", "batch": 4, "layers": [{"name": "c1", "input": [3, 8, 8],)"
                              R"( "filters": 4, "kernel": [3, 3]}]})");
  const std::string csv = dir_.write("tiny.csv", "c1,fwd,4,0,0,1.0,0\nc1,fwd,2,0,0,0.4,0\n");
  const std::string tiny_db = imported(csv, "tiny.db", net);
  expect_error({"plan", tiny_db}, kExitDataError, "name the network its rows are of with --network");
  const Json tiny = plan_json({"plan", tiny_db, "--network", net});
  ASSERT_EQ(tiny["kernels"].size(), 1u);
  EXPECT_EQ(tiny["kernels"][0]["layer"], "c1");
  EXPECT_EQ(tiny, plan_json({"plan", csv}));

  const std::string both = imported(csv, "both.db", net);
  imported(alexnet_, "both.db");
  EXPECT_EQ(plan_json({"plan", both}), plan_json({"plan", alexnet_}));
  EXPECT_EQ(plan_json({"plan", both, "--network", net}), tiny);
}

// ---- a network by name --------------------------------------------------------------------------

TEST_F(PlanInputs, ANetworkAloneSaysWhatIsMissing) {
  const int usage = kExitUsageError;
  expect_error({"plan", "alexnet"}, usage, "plan alexnet needs measurements: ucudnn plan FILE --network alexnet, ");
  expect_error({"plan", "alexnet"}, usage, "or set UCUDNN_DATABASE");
  expect_error({"plan", "--network", "resnet50"}, usage, "plan resnet50 needs measurements: ");
  expect_error({"plan"}, usage,
               "plan needs measurements: ucudnn plan FILE, FILE a benchmark table (CSV) or a ucudnn database");
  expect_error({"plan", "alexnt"}, usage, "'alexnt' is neither a file nor a built-in network");
  expect_error({"plan", "alexnt"}, usage, "did you mean alexnet?");
  expect_error({"plan", alexnet_, alexnet_ + "x"}, usage, "measurements given twice");
  expect_error({"plan", "alexnet", "--network", "vgg16"}, usage, "a network given twice ('alexnet' and 'vgg16')");
}

TEST_F(PlanInputs, ANetworkPlansFromTheFileGivenOrTheDatabaseOfTheEnvironment) {
  const Json expected = plan_json({"plan", alexnet_});
  const Json named = plan_json({"plan", "alexnet", alexnet_});
  EXPECT_EQ(named, expected);
  const CliResult table = run({"plan", alexnet_, "alexnet"});
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_EQ(table.out.rfind("WR plan of alexnet, ", 0), 0u) << table.out;

  const std::string db = imported(alexnet_, "h100.db");
  EXPECT_EQ(binary_json("plan alexnet", "UCUDNN_DATABASE='" + db + "'"), expected);
  EXPECT_EQ(binary_json("plan", "UCUDNN_DATABASE='" + db + "'"), expected);
}

TEST_F(PlanInputs, ANetworkWithoutMeasurementsNamesTheNetworksTheyHave) {
  const std::string db = imported(alexnet_, "h100.db");
  for (const std::string& measurements : {alexnet_, db}) {
    expect_error({"plan", measurements, "--network", "resnet50"}, kExitDataError,
                 "the measurements have no rows of the layers of network 'resnet50'; they have every layer of alexnet");
  }
  const std::string other = dir_.write("other.csv", "k,fwd,2,0,0,1.0,0\n");
  expect_error({"plan", other, "--network", "alexnet"}, kExitDataError,
               "they have the layers of none of the built-in networks");
  // Part of a network would understate its time.
  const std::string part = dir_.write("conv1.csv", "alex_conv1,fwd,256,0,0,2.5,0\n");
  expect_error({"plan", part, "--network", "alexnet"}, kExitDataError,
               "the measurements lack 4 of the 5 layers of network 'alexnet' (the first: alex_conv2)");
  EXPECT_EQ(plan_json({"plan", part})["kernels"].size(), 1u) << "without --network, the table as it is";
}

// ---- files that are neither ---------------------------------------------------------------------

TEST_F(PlanInputs, OtherFilesAreRefusedSayingWhatTheyAreAndWhatPlanReads) {
  const std::string gzip = (dir_.path() / "table.csv.gz").string();
  write_bytes(gzip, bytes("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xab\xca"));
  expect_error({"plan", gzip}, kExitDataError,
               "measurements file '" + gzip +
                   "' is gzip-compressed data; plan reads a benchmark table (CSV text, the format of "
                   "tests/data/README.md) or a ucudnn database (SQLite)");
  std::string noise;
  for (int i = 0; i < 4096; ++i) noise += static_cast<char>((i * 7919) % 256);
  const std::string binary = (dir_.path() / "noise.csv").string();
  write_bytes(binary, noise);
  expect_error({"plan", binary}, kExitDataError, "is binary data; plan reads a benchmark table");
  // A database given for a table, where only a table is read, is named as one too.
  const std::string db = imported(alexnet_, "h100.db");
  const CliResult import = run({"db", "import", "--measurements", db, "--database", (dir_.path() / "b.db").string(),
                                "--network", "alexnet", "--gpu-name", "g", "--compute-capability", "90", "--sm-count",
                                "132", "--cudnn-version", "91400", "--cuda-version", "13000"});
  EXPECT_EQ(import.status, kExitDataError);
  EXPECT_NE(import.err.find("is an SQLite database, not a benchmark table (CSV text"), std::string::npos) << import.err;
}

TEST_F(PlanInputs, DeviceOptionsChooseOneOfADatabasesDevices) {
  const std::string db = imported(alexnet_, "two.db");
  imported(alexnet_, "two.db", "alexnet", "NVIDIA H200");
  expect_error({"plan", db}, kExitDataError, "choose one with --gpu-name");
  EXPECT_EQ(plan_json({"plan", db, "--gpu-name", "NVIDIA H200"}), plan_json({"plan", alexnet_}));
  expect_error({"plan", alexnet_, "--gpu-name", "NVIDIA H200"}, kExitDataError, "is a benchmark table, of one device");
}

// ---- what no option says, the settings say ------------------------------------------------------

TEST_F(PlanInputs, TheLimitAndTheModeComeFromTheLibrarysSettings) {
  const std::string table = "plan " + quoted_alexnet_;
  EXPECT_EQ(binary_json(table, "UCUDNN_DEFAULT_WORKSPACE_LIMIT=8MiB"), plan_json(plan_args(alexnet_, "8MiB")));
  EXPECT_EQ(binary_json(table + " --workspace-limit 32MiB", "UCUDNN_DEFAULT_WORKSPACE_LIMIT=8MiB"),
            plan_json(plan_args(alexnet_, "32MiB")))
      << "the option wins";
  const ProcessResult titled = run_binary(dir_, table, std::string(kUnset) + " UCUDNN_DEFAULT_WORKSPACE_LIMIT=8MiB");
  EXPECT_EQ(titled.out.rfind("WR plan, policy powerOfTwo, workspace limit 8 MiB per kernel "
                             "(UCUDNN_DEFAULT_WORKSPACE_LIMIT), 15 kernels\n",
                             0),
            0u)
      << titled.out << titled.err;

  const Json wd = binary_json(table, "UCUDNN_TOTAL_WORKSPACE_SIZE=120MiB");
  EXPECT_EQ(wd["mode"], "wd");
  EXPECT_EQ(without_solve_time(wd), without_solve_time(plan_json(wd_args(alexnet_, "120MiB"))));
  EXPECT_EQ(binary_json(table, "UCUDNN_BATCH_SIZE_POLICY=undivided UCUDNN_CANDIDATES=legacy"),
            plan_json(with({"plan", alexnet_}, {"--policy", "undivided", "--candidates", "legacy"})));
  const ProcessResult bad = run_binary(dir_, table, std::string(kUnset) + " UCUDNN_DEFAULT_WORKSPACE_LIMIT=64MB");
  EXPECT_EQ(bad.status, kExitUsageError);
  EXPECT_TRUE(is_one_error_line(bad.err)) << bad.err;
  EXPECT_NE(bad.err.find("UCUDNN_DEFAULT_WORKSPACE_LIMIT"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace ucudnn::testing
