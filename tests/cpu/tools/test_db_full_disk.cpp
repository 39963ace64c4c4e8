// `ucudnn db` where the disk fills, under a file size limit (ulimit -f: no mount needed) or with the
// disk filling as the -wal is copied into a new file (FullDiskVfs): a failed merge or import into a
// new file leaves no file at all (it is made under a temporary name and named only once whole, its
// -wal copied in by a checkpoint that completed), and one into an existing rollback-journal database
// leaves it as it was, with no hot journal for its readers to meet. Each test failed before its fix.

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include "cli_test_support.h"
#include "full_disk_vfs.h"
#include "test_helpers.h"
#include "tools/cli.h"

namespace ucudnn::testing {
using tools::kExitDataError;
namespace {

namespace fs = std::filesystem;

const std::string kIdentity =
    " --network alexnet --gpu-name X --compute-capability 90 --sm-count 132 --cudnn-version 91900 --cuda-version 13000";

// A table of `batches` x 4 rows for each of AlexNet's 15 kernels.
std::string alexnet_table(const TempDir& dir, const std::string& name, int batches) {
  std::ostringstream table;
  table << "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes\n";
  for (int layer = 1; layer <= 5; ++layer) {
    for (const char* op : {"fwd", "bwdd", "bwdf"}) {
      for (int batch = 1; batch <= batches; ++batch) {
        for (int algo = 0; algo < 4; ++algo) {
          table << "alex_conv" << layer << ',' << op << ',' << batch << ',' << algo << ",0,0.5,0\n";
        }
      }
    }
  }
  return dir.write(name, table.str());
}

std::set<std::string> names_in(const fs::path& folder) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.insert(entry.path().filename().string());
  return names;
}

// `ucudnn ARGS` with a file size limit of some 500 KB (the shell's ulimit -f; the database of the
// big table below is some 10 MB).
ProcessResult run_limited(const TempDir& dir, const std::string& arguments) {
  return run_binary(dir, arguments, "env -u UCUDNN_DATABASE -u UCUDNN_DATABASE_JOURNAL sh -c 'ulimit -f 1000; exec \"$0\" \"$@\"'");
}

class DbFullDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string big = alexnet_table(source_dir_, "big.csv", 400);
    const ProcessResult imported =
        run_binary(source_dir_, "db import --measurements '" + big + "' --database '" + source_ + "'" + kIdentity,
                   "env -u UCUDNN_DATABASE -u UCUDNN_DATABASE_JOURNAL");
    ASSERT_EQ(imported.status, 0) << imported.err;
  }
  TempDir source_dir_;  // where the test's own files are, apart from the folder a command writes in
  const std::string source_ = (source_dir_.path() / "source.db").string();
  TempDir dir_;
};

TEST_F(DbFullDisk, AFailedMergeOrImportIntoANewFileLeavesNoFile) {
  const std::string into = (dir_.path() / "new.db").string();
  const ProcessResult merged = run_limited(source_dir_, "db merge --from '" + source_ + "' --into '" + into + "' --create");
  EXPECT_EQ(merged.status, kExitDataError) << merged.err;
  EXPECT_NE(merged.err.find("nothing merged"), std::string::npos) << merged.err;
  EXPECT_NE(merged.err.find("file size limit"), std::string::npos) << merged.err;
  EXPECT_NE(merged.err.find("'" + into + "'"), std::string::npos) << "named by its own name\n" << merged.err;
  EXPECT_TRUE(names_in(dir_.path()).empty()) << "left: " << *names_in(dir_.path()).begin();

  const std::string big = (source_dir_.path() / "big.csv").string();
  const ProcessResult imported =
      run_limited(source_dir_, "db import --measurements '" + big + "' --database '" + into + "'" + kIdentity);
  EXPECT_EQ(imported.status, kExitDataError) << imported.err;
  EXPECT_TRUE(names_in(dir_.path()).empty()) << "left: " << *names_in(dir_.path()).begin();

  // A later merge without --create still finds nothing there, and one that fits makes the file.
  const ProcessResult after = run_binary(source_dir_, "db merge --from '" + source_ + "' --into '" + into + "'");
  EXPECT_EQ(after.status, kExitDataError);
  EXPECT_NE(after.err.find("does not exist (give --create"), std::string::npos) << after.err;
  const ProcessResult fits = run_binary(source_dir_, "db merge --from '" + source_ + "' --into '" + into + "' --create");
  ASSERT_EQ(fits.status, 0) << fits.err;
  EXPECT_EQ(names_in(dir_.path()), std::set<std::string>{"new.db"});
}

// The rows of a new WAL file are committed into its -wal, then copied into the file when it closes.
// Where the disk fills during that copy, SQLite's close says nothing and leaves the rows in the -wal:
// the file was named all the same, "malformed", its rows in an orphaned hidden -wal, exit 0.
TEST_F(DbFullDisk, ACopyOfTheWalThatFailsForWantOfSpaceNamesNoFile) {
  const std::string table = alexnet_table(source_dir_, "table.csv", 40);
  const std::string into = (dir_.path() / "new.db").string();
  const std::vector<std::vector<std::string>> commands = {
      {"db", "import", "--measurements", table, "--database", into, "--network", "alexnet", "--gpu-name", "X",
       "--compute-capability", "90", "--sm-count", "132", "--cudnn-version", "91900", "--cuda-version", "13000"},
      {"db", "merge", "--from", source_, "--into", into, "--create", "--journal", "wal"}};
  for (const auto& command : commands) {
    SCOPED_TRACE(command[1]);
    {
      const FullDiskVfs disk(64 * 1024);  // the new file's first pages fit; its rows do not
      const CliResult failed = run(command);
      EXPECT_GT(disk.refused(), 0) << "the disk never filled: the test tests nothing";
      EXPECT_EQ(failed.status, kExitDataError) << failed.out;
      EXPECT_TRUE(is_one_error_line(failed.err)) << failed.err;
      EXPECT_NE(failed.err.find("could not be copied from its -wal"), std::string::npos) << failed.err;
      EXPECT_NE(failed.err.find("the disk is full"), std::string::npos) << failed.err;
      EXPECT_NE(failed.err.find("'" + into + "'"), std::string::npos) << "named by its own name\n" << failed.err;
      EXPECT_TRUE(names_in(dir_.path()).empty()) << "left: " << *names_in(dir_.path()).begin();
    }
    const CliResult fits = run(command);
    ASSERT_EQ(fits.status, 0) << fits.err;
    EXPECT_EQ(names_in(dir_.path()), std::set<std::string>{"new.db"});
    const CliResult verified = run({"db", "verify", "--database", into});
    EXPECT_EQ(verified.status, 0) << verified.err;
    fs::remove(into);
  }
}

TEST_F(DbFullDisk, AFailedMergeIntoARollbackJournalDatabaseLeavesItAsItWas) {
  const std::string small = alexnet_table(source_dir_, "small.csv", 2);
  const std::string into = (dir_.path() / "shared.db").string();
  const ProcessResult made =
      run_binary(source_dir_, "db import --measurements '" + small + "' --database '" + into + "'" + kIdentity,
                 "env -u UCUDNN_DATABASE UCUDNN_DATABASE_JOURNAL=delete");
  ASSERT_EQ(made.status, 0) << made.err;
  const std::string before = read_bytes(into);

  const ProcessResult merged = run_limited(source_dir_, "db merge --from '" + source_ + "' --into '" + into + "'");
  EXPECT_EQ(merged.status, kExitDataError) << merged.err;
  EXPECT_NE(merged.err.find("nothing merged"), std::string::npos) << merged.err;
  EXPECT_EQ(names_in(dir_.path()), std::set<std::string>{"shared.db"}) << "a hot journal is left for its readers";
  EXPECT_EQ(read_bytes(into), before) << "grown, or changed";
  const ProcessResult stats = run_binary(source_dir_, "db stats --database '" + into + "'");
  ASSERT_EQ(stats.status, 0) << stats.err;
  EXPECT_NE(stats.out.find("rows: 120"), std::string::npos) << stats.out;
}

}  // namespace
}  // namespace ucudnn::testing
