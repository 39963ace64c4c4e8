// `ucudnn db` against damage and misuse: an export onto the database itself, an export that plan and
// db import could not read back, a database of several devices, verify on a damaged schema and a
// killed import. Each test failed before its fix, but the one marked as a guard.

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_test_support.h"
#include "core/measurement_csv.h"
#include "store/database.h"
#include "test_helpers.h"
#include "tools/cli.h"

namespace ucudnn::testing {
using store::BenchmarkDatabase;
using store::StoredRow;
using tools::kExitDataError;
namespace {

namespace fs = std::filesystem;

// Every row of a table, by kernel: (layer, op) -> rows as (micro-batch, algo, math, time, workspace).
using Rows = std::multiset<std::tuple<int, int, int, double, std::size_t>>;
std::map<std::pair<std::string, std::string>, Rows> table_of(const std::string& path) {
  const auto kernels = read_measurements_csv(path);
  EXPECT_TRUE(kernels.ok()) << kernels.message();
  std::map<std::pair<std::string, std::string>, Rows> table;
  if (!kernels) return table;
  for (const auto& kernel : *kernels) {
    auto& rows = table[{kernel.layer, short_name(kernel.op)}];
    for (const auto& m : kernel.rows) rows.emplace(m.micro_batch, m.algo, m.math_type, m.time_ms, m.workspace_bytes);
  }
  return table;
}

class DbCommandHardening : public ::testing::Test {
 protected:
  std::vector<std::string> import_args(const std::string& csv, const std::string& db,
                                       const std::string& gpu = "NVIDIA H100 80GB HBM3") const {
    return {"db", "import", "--measurements", csv, "--database", db, "--network", "alexnet", "--gpu-name", gpu,
            "--compute-capability", "90", "--sm-count", "132", "--cudnn-version", "91400", "--cuda-version",
            "13000"};
  }
  CliResult export_table(const std::string& db, std::vector<std::string> more = {}) const {
    std::vector<std::string> args = {"db", "export", "--database", db};
    args.insert(args.end(), more.begin(), more.end());
    return run(args);
  }

  testing::TempDir dir_;
  const std::string db_ = (dir_.path() / "bench.db").string();
  const std::string alexnet_ = testing::alexnet_csv_path();
  // Tests pass --database; inherited settings must not change what they see.
  testing::ScopedVariable no_database_{"UCUDNN_DATABASE", std::nullopt};
  testing::ScopedVariable no_journal_{"UCUDNN_DATABASE_JOURNAL", std::nullopt};
};

// ---- export onto the database -------------------------------------------------------------------

TEST_F(DbCommandHardening, ExportOntoTheDatabaseIsRefusedAndTheDatabaseKept) {
  ASSERT_EQ(run(import_args(alexnet_, db_)).status, 0);
  const std::string before = read_bytes(db_);
  const std::string hard_link = (dir_.path() / "hard.db").string();
  const std::string soft_link = (dir_.path() / "soft.csv").string();
  ASSERT_EQ(::link(db_.c_str(), hard_link.c_str()), 0);
  ASSERT_EQ(::symlink(db_.c_str(), soft_link.c_str()), 0);
  const std::string respelled = (dir_.path() / "." / "bench.db").string();
  for (const std::string& target : {db_, respelled, hard_link, soft_link}) {
    expect_error({"db", "export", "--csv", "--database", db_, "--output", target}, kExitDataError,
                 "is the benchmark database");
    EXPECT_EQ(read_bytes(db_), before) << "the database was overwritten through " << target;
  }
  // SQLite's files beside it, existing or not: a CSV named like a journal would be discarded.
  for (const char* suffix : {"-journal", "-wal", "-shm"}) {
    const bool existed = exists(db_ + suffix);
    expect_error({"db", "export", "--csv", "--database", db_, "--output", db_ + suffix}, kExitDataError,
                 "is the benchmark database");
    EXPECT_EQ(exists(db_ + suffix), existed) << suffix;
  }
  const CliResult verified = run({"db", "verify", "--database", db_});
  EXPECT_EQ(verified.out, "ok\n") << verified.err;
}

TEST_F(DbCommandHardening, ExportIsWrittenWholeOrNotAtAll) {
  ASSERT_EQ(run(import_args(alexnet_, db_)).status, 0);
  ASSERT_EQ(run(import_args(alexnet_, db_, "NVIDIA H200")).status, 0);
  const std::string fresh = (dir_.path() / "table.csv").string();

  // A failed export (two devices, none chosen) creates nothing.
  const CliResult refused = export_table(db_, {"--output", fresh});
  EXPECT_EQ(refused.status, kExitDataError);
  EXPECT_TRUE(is_one_error_line(refused.err)) << refused.err;
  EXPECT_FALSE(exists(fresh));

  const CliResult done = export_table(db_, {"--output", fresh, "--gpu-name", "NVIDIA H200"});
  ASSERT_EQ(done.status, 0) << done.err;
  EXPECT_EQ(read_bytes(fresh), export_table(db_, {"--gpu-name", "NVIDIA H200"}).out);
  for (const auto& entry : fs::directory_iterator(dir_.path())) {
    EXPECT_EQ(entry.path().filename().string().find(".ucudnn-export"), std::string::npos) << entry.path();
  }

  // What the user stored is never overwritten: an existing file is refused and kept as it was.
  const std::string kept = dir_.write("kept.csv", "what was here\n");
  expect_error({"db", "export", "--csv", "--database", db_, "--gpu-name", "NVIDIA H200", "--output", kept},
               kExitDataError, "exists; it is not overwritten");
  EXPECT_EQ(read_bytes(kept), "what was here\n");

  if (exists("/dev/full")) {
    expect_error({"db", "export", "--csv", "--database", db_, "--gpu-name", "NVIDIA H200", "--output", "/dev/full"},
                 kExitDataError, "/dev/full");
  }
}

// `--output /dev/stdout >> FILE`: /dev/stdout is then that file, but the user asked to append to
// it; replacing it by a renamed temporary file lost what FILE held.
TEST_F(DbCommandHardening, ExportToARedirectedStandardOutputAppendsToIt) {
  ASSERT_EQ(run(import_args(alexnet_, db_)).status, 0);
  const std::string all = dir_.write("all.csv", "earlier lines\n");
  const std::string command = "'" + std::string(UCUDNN_CLI_PATH) + "' db export --csv --database '" + db_ +
                              "' --output /dev/stdout >> '" + all + "'";
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(read_bytes(all), "earlier lines\n" + export_table(db_).out);
}

// Rows stored before today's table rules (here a micro-batch above the maximum) are not written
// as a table that plan and db import would refuse.
TEST_F(DbCommandHardening, ExportRefusesRowsThatTheTableFormatCannotHold) {
  {
    auto database = BenchmarkDatabase::open(db_);
    ASSERT_TRUE(database.ok()) << database.message();
    StoredRow row;
    row.identity = DeviceIdentity{"GPU", 90, 132, 91400, 13000};
    row.layer = "big";
    row.measurement.micro_batch = 4;
    row.measurement.time_ms = 1.0;
    row.measured_at = "2026-11-24T00:00:00Z";
    ASSERT_TRUE((*database)->store_rows({row}).ok());
    row.measurement.micro_batch = kMaxMicroBatch * 2;  // refused by the store, as by the table
    ASSERT_FALSE((*database)->store_rows({row}).ok());
  }
  // Made so by another program: export refuses it by the same rule.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, ("UPDATE measurements SET micro_batch = " + std::to_string(kMaxMicroBatch * 2)).c_str(),
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  const std::string output = (dir_.path() / "big.csv").string();
  expect_error({"db", "export", "--csv", "--database", db_, "--output", output}, kExitDataError,
               "do not make a table that plan and db import read");
  EXPECT_FALSE(exists(output));
}

// ---- the export is the table that plan and db import read ---------------------------------------

TEST_F(DbCommandHardening, ExportedTableReadsBackIntoImportAndPlan) {
  ASSERT_EQ(run(import_args(alexnet_, db_)).status, 0);
  const std::string named = (dir_.path() / "named.csv").string();
  const CliResult exported = export_table(db_, {"--network", "alexnet", "--output", named});
  ASSERT_EQ(exported.status, 0) << exported.err;
  EXPECT_EQ(read_bytes(named).rfind("layer,op,microbatch,algo,math_type,time_ms,workspace_bytes,engine,host_ms\n", 0), 0u);
  EXPECT_EQ(table_of(named), table_of(alexnet_)) << "the same kernels and rows as the table imported";

  // Into a fresh database: every row, and the same export again.
  const std::string fresh = (dir_.path() / "fresh.db").string();
  const CliResult reimported = run(import_args(named, fresh));
  ASSERT_EQ(reimported.status, 0) << reimported.err;
  EXPECT_EQ(reimported.out, "648 rows read, 648 new\n");
  EXPECT_EQ(export_table(fresh, {"--network", "alexnet"}).out, read_bytes(named));

  // plan reads it, and plans as from the recorded table.
  for (const std::vector<std::string>& mode :
       {std::vector<std::string>{"--workspace-limit", "64MiB"}, std::vector<std::string>{"--total-workspace", "120MiB"}}) {
    std::vector<std::string> from_export = {"plan", "--json", "--measurements", named};
    std::vector<std::string> from_table = {"plan", "--json", "--measurements", alexnet_};
    from_export.insert(from_export.end(), mode.begin(), mode.end());
    from_table.insert(from_table.end(), mode.begin(), mode.end());
    const CliResult a = run(from_export), b = run(from_table);
    ASSERT_EQ(a.status, 0) << a.err;
    ASSERT_EQ(b.status, 0) << b.err;
    auto plan_a = nlohmann::json::parse(a.out), plan_b = nlohmann::json::parse(b.out);
    plan_a.erase("solve_ms");  // a timing of the solver, not of the plan
    plan_b.erase("solve_ms");
    EXPECT_EQ(plan_a, plan_b);
  }

  // Without --network the layers are named by signature: plan reads it, and db import reads it
  // back with the network that has those layers.
  const std::string signed_table = (dir_.path() / "signatures.csv").string();
  ASSERT_EQ(export_table(db_, {"--output", signed_table}).status, 0);
  const CliResult planned = run({"plan", "--json", "--measurements", signed_table, "--workspace-limit", "64MiB"});
  ASSERT_EQ(planned.status, 0) << planned.err;
  const auto a = nlohmann::json::parse(planned.out);
  const auto b = nlohmann::json::parse(run({"plan", "--json", "--measurements", alexnet_, "--workspace-limit", "64MiB"}).out);
  ASSERT_EQ(a["kernels"].size(), b["kernels"].size());
  double total_a = 0, total_b = 0;
  for (const auto& k : a["kernels"]) total_a += k["time_ms"].get<double>();
  for (const auto& k : b["kernels"]) total_b += k["time_ms"].get<double>();
  EXPECT_DOUBLE_EQ(total_a, total_b);
  const std::string third = (dir_.path() / "third.db").string();
  const CliResult from_signatures = run(import_args(signed_table, third));
  ASSERT_EQ(from_signatures.status, 0) << from_signatures.err;
  EXPECT_EQ(from_signatures.out, "648 rows read, 648 new\n");
  EXPECT_EQ(export_table(third, {"--network", "alexnet"}).out, read_bytes(named));

  // A network without the database's layers says so and names the way out.
  const std::string other = dir_.write("other.json", R"({"batch": 4, "layers": [
      {"name": "c1", "input": [8, 16, 16], "filters": 8, "kernel": [3, 3], "pad": 1}]})");
  expect_error({"db", "export", "--csv", "--database", db_, "--network", other}, kExitDataError,
               "export without --network");
}

TEST_F(DbCommandHardening, ExportOfSeveralDevicesNamesTheOptionThatSelectsOne) {
  ASSERT_EQ(run(import_args(alexnet_, db_)).status, 0);
  ASSERT_EQ(run(import_args(alexnet_, db_, "NVIDIA H200")).status, 0);
  const CliResult both = export_table(db_);
  EXPECT_EQ(both.status, kExitDataError);
  EXPECT_TRUE(both.out.empty());
  EXPECT_TRUE(is_one_error_line(both.err)) << both.err;
  for (const char* word : {"--gpu-name", "NVIDIA H200", "NVIDIA H100 80GB HBM3"}) {
    EXPECT_NE(both.err.find(word), std::string::npos) << both.err;
  }
  const std::string h200 = (dir_.path() / "h200.csv").string();
  const CliResult one = export_table(db_, {"--gpu-name", "NVIDIA H200", "--network", "alexnet", "--output", h200});
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(table_of(h200), table_of(alexnet_));
  expect_error({"db", "export", "--csv", "--database", db_, "--gpu-name", "NVIDIA A100"}, kExitDataError,
               "NVIDIA H200");
  const CliResult by_version = export_table(db_, {"--gpu-name", "NVIDIA H100 80GB HBM3", "--cudnn-version", "91400"});
  EXPECT_EQ(by_version.status, 0) << by_version.err;
}

// ---- verify names what a damaged schema lacks ---------------------------------------------------

TEST_F(DbCommandHardening, VerifyFailsOnADatabaseWithoutItsMeasurementsTable) {
  ASSERT_EQ(run(import_args(alexnet_, db_)).status, 0);
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "DROP TABLE measurements", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  expect_error({"db", "verify", "--database", db_}, kExitDataError, "measurements");
}

// ---- an import killed while it writes, in rollback-journal mode ---------------------------------
// A guard: whether the old code failed here depends on which pages the kill catches in
// the file; DatabaseHardening.KilledRollbackJournalWriter* reproduce it deterministically.

TEST_F(DbCommandHardening, AnImportKilledInRollbackJournalModeLeavesAHealthyDatabase) {
  const std::string journal = "env -u UCUDNN_DATABASE UCUDNN_DATABASE_JOURNAL=delete";
  std::string first;
  for (const std::string& arg : import_args(alexnet_, db_)) first += "'" + arg + "' ";
  const auto imported = testing::run_binary(dir_, first, journal);
  ASSERT_EQ(imported.status, 0) << imported.err;

  // 107,520 rows over AlexNet's layers, each row once.
  std::ostringstream big;
  big << "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes\n";
  for (int layer = 1; layer <= 5; ++layer) {
    for (const char* op : {"fwd", "bwdd", "bwdf"}) {
      for (int mb = 1; mb <= 448; ++mb) {
        for (int algo = 0; algo < 4; ++algo) {
          for (int math = 0; math < 4; ++math) {
            big << "alex_conv" << layer << ',' << op << ',' << mb << ',' << algo << ',' << math << ",0.5,0\n";
          }
        }
      }
    }
  }
  const std::string table = dir_.write("big.csv", big.str());
  const auto size_before = fs::file_size(db_);

  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setenv("UCUDNN_DATABASE_JOURNAL", "delete", 1);
    const auto args = import_args(table, db_, "Killed import GPU");
    std::vector<char*> argv = {const_cast<char*>(UCUDNN_CLI_PATH)};
    for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    if (freopen("/dev/null", "w", stdout) == nullptr) _exit(126);
    execv(UCUDNN_CLI_PATH, argv.data());
    _exit(127);
  }
  // Kill it once its uncommitted pages reach the file (the journal holds the old ones).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    std::error_code ignored;
    if (exists(db_ + "-journal") && fs::file_size(db_, ignored) > size_before) break;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the import ended before it was killed: " << WEXITSTATUS(status);

  const CliResult verified = run({"db", "verify", "--database", db_});
  EXPECT_EQ(verified.status, 0) << verified.err;
  EXPECT_EQ(verified.out, "ok\n");
  const CliResult stats = run({"db", "stats", "--json", "--database", db_});
  ASSERT_EQ(stats.status, 0) << stats.err;
  EXPECT_EQ(nlohmann::json::parse(stats.out)["rows"], 648) << "only the committed rows";
}

}  // namespace
}  // namespace ucudnn::testing
