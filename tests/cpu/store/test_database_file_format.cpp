// The file format of schema 3, pinned byte for byte: the CREATE statements are made from one list
// of columns (store/columns.h), and what a new file holds in sqlite_master must stay the text
// that files have had since schema 3; a version-1 or version-2 file upgraded in place ends with
// the same text. Verify checks every key column that list names.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "core/conv_layer.h"
#include "database_test_support.h"
#include "sqlite_rows.h"
#include "store/database.h"
#include "test_helpers.h"
#include "version_1_database.h"
#include "version_2_database.h"

namespace ucudnn {
using store::BenchmarkDatabase;
namespace {

using testing::TempDir;
using testing::test_gpu;

// sqlite_master as SQLite stores it (it drops IF NOT EXISTS), copied from files that ucudnn of
// schema 3 wrote before the columns were listed once.
const std::vector<std::vector<std::string>> kVersion3Master = {
    {"index", "measurements_key", "measurements",
     "CREATE UNIQUE INDEX measurements_key ON measurements(gpu_name, compute_capability, sm_count, cudnn_version, "
     "cuda_runtime_version, op, layer, micro_batch, algo, math_type, engine)"},
    {"index", "sqlite_autoindex_coverage_1", "coverage", ""},
    {"index", "sqlite_autoindex_meta_1", "meta", ""},
    {"table", "coverage", "coverage",
     "CREATE TABLE coverage( gpu_name TEXT NOT NULL, compute_capability INTEGER NOT NULL, sm_count INTEGER NOT "
     "NULL, cudnn_version INTEGER NOT NULL, cuda_runtime_version INTEGER NOT NULL, op TEXT NOT NULL, layer TEXT NOT "
     "NULL, micro_batch INTEGER NOT NULL, measured_up_to INTEGER NOT NULL, candidates INTEGER NOT NULL DEFAULT 0, "
     "PRIMARY KEY(gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, op, layer, "
     "micro_batch, candidates))"},
    {"table", "measurements", "measurements",
     "CREATE TABLE measurements( gpu_name TEXT NOT NULL, compute_capability INTEGER NOT NULL, sm_count INTEGER NOT "
     "NULL, cudnn_version INTEGER NOT NULL, cuda_runtime_version INTEGER NOT NULL, op TEXT NOT NULL, layer TEXT NOT "
     "NULL, micro_batch INTEGER NOT NULL, algo INTEGER NOT NULL, math_type INTEGER NOT NULL, deterministic INTEGER "
     "NOT NULL, time_ms REAL NOT NULL, workspace_bytes INTEGER NOT NULL, measured_at TEXT NOT NULL, engine TEXT NOT "
     "NULL DEFAULT '', host_ms REAL NOT NULL DEFAULT 0)"},
    {"table", "meta", "meta", "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)"},
};

// One SQL answer through SQLite alone ('' for NULL, as sqlite_master's sql of an automatic index).
std::vector<std::vector<std::string>> query(const std::string& path, const std::string& sql) {
  return testing::sqlite_rows(path, sql, "");
}

std::vector<std::vector<std::string>> master(const std::string& path) {
  return query(path, "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name");
}

BenchmarkDatabase::Options rollback_journal() {
  BenchmarkDatabase::Options options;
  options.journal = JournalMode::kDelete;
  return options;
}

TEST(DatabaseFileFormat, ANewFileHoldsTheSchemaThreeTextByteForByte) {
  TempDir dir;
  const std::string path = (dir.path() / "new.db").string();
  ASSERT_TRUE(BenchmarkDatabase::open(path, rollback_journal()).ok());
  EXPECT_EQ(master(path), kVersion3Master);
  EXPECT_EQ(query(path, "SELECT key, value FROM meta"),
            (std::vector<std::vector<std::string>>{{"schema_version", "3"}}));
}

TEST(DatabaseFileFormat, UpgradedFilesHoldTheSameTextAsNewOnes) {
  TempDir dir;
  const std::string v1 = (dir.path() / "v1.db").string();
  const std::string v2 = (dir.path() / "v2.db").string();
  const testing::Version1Row row{"fwd", "layer-a", 4, 1, 0, 1, 0.5, 1024};
  const testing::Version1Coverage coverage{"fwd", "layer-a", 4, 4096};
  ASSERT_TRUE(testing::write_version_1_database(v1, test_gpu(), {row}, {coverage}));
  ASSERT_TRUE(testing::write_version_2_database(v2, test_gpu(), {{row, ""}}, {{coverage, 0}}));
  for (const std::string& path : {v1, v2}) {
    SCOPED_TRACE(path);
    ASSERT_TRUE(BenchmarkDatabase::open(path, rollback_journal()).ok());
    EXPECT_EQ(master(path), kVersion3Master);
    EXPECT_EQ(query(path, "SELECT layer, micro_batch, algo, engine, host_ms FROM measurements"),
              (std::vector<std::vector<std::string>>{{"layer-a", "4", "1", "", "0.0"}}));
    EXPECT_EQ(query(path, "SELECT layer, micro_batch, measured_up_to, candidates FROM coverage"),
              (std::vector<std::vector<std::string>>{{"layer-a", "4", "4096", "0"}}));
  }
}

// Every key column counts, not only those that later versions added: a unique index without the
// micro-batch would drop the rows of every other micro-batch as duplicates.
TEST(DatabaseFileFormat, VerifyNamesAnyKeyColumnTheIndexLacks) {
  TempDir dir;
  const std::string path = (dir.path() / "key.db").string();
  ASSERT_TRUE(BenchmarkDatabase::open(path, rollback_journal()).ok());
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  const int rc = sqlite3_exec(raw,
                              "DROP INDEX measurements_key; CREATE UNIQUE INDEX measurements_key ON measurements("
                              "gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, op, layer, "
                              "algo, math_type, engine)",
                              nullptr, nullptr, nullptr);
  sqlite3_close(raw);
  ASSERT_EQ(rc, SQLITE_OK);
  const auto refused = BenchmarkDatabase::open(path, rollback_journal());
  ASSERT_FALSE(refused.ok()) << "opened to be written past a key without the micro-batch";
  EXPECT_NE(refused.message().find("the index measurements_key does not hold the column micro_batch"),
            std::string::npos)
      << refused.message();
  auto options = rollback_journal();
  options.check_schema = false;  // as `db verify` opens it
  auto db = BenchmarkDatabase::open(path, options);
  ASSERT_TRUE(db.ok()) << db.message();
  const auto verified = (*db)->verify();
  ASSERT_FALSE(verified.ok());
  EXPECT_NE(verified.message().find("the index measurements_key does not hold the column micro_batch"),
            std::string::npos)
      << verified.message();
}

}  // namespace
}  // namespace ucudnn
