// Rows read back from a benchmark database are checked where they are read: any program may write
// an SQLite file, and SQLite keeps any value in any column. A row that cannot be a measurement
// (a negative or textual time, a textual workspace, an algorithm no int holds, a negative coverage
// bound) is refused and named by lookups, `db verify` and `db merge`; it is never planned with,
// converted, or dropped as "already there".

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "cli_test_support.h"
#include "database_test_support.h"
#include "store/database.h"
#include "test_helpers.h"

namespace ucudnn::testing {
using store::BenchmarkDatabase;
namespace {

using store::BenchmarkDatabase;

// Runs one statement on the file with SQLite itself, as another program would.
void execute(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  const std::string why = message ? message : "";
  sqlite3_free(message);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << sql << ": " << why;
}

// A database of 4 legacy rows of one kernel (micro-batch 8), complete for any workspace.
std::string healthy_database(const TempDir& dir, const std::string& name) {
  const std::string path = (dir.path() / name).string();
  auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete));
  EXPECT_TRUE(db.ok()) << db.message();
  EXPECT_TRUE((*db)->store(test_gpu(), layer_key(0, 8), CandidateKind::kLegacy, SIZE_MAX, rows_for(8, 4)).ok());
  return path;
}

struct Damage {
  const char* sql;    ///< what another program wrote
  const char* named;  ///< what the refusal must say
};

// Each way a row or bound can hold what no measurement is.
const Damage kDamages[] = {
    {"UPDATE measurements SET time_ms = -1000 WHERE algo = 3", "GPU time is not from 0 to 1e9 ms"},
    {"UPDATE measurements SET time_ms = 'fast' WHERE algo = 3", "column time_ms holds text 'fast', not a number"},
    {"UPDATE measurements SET workspace_bytes = 'big' WHERE algo = 3", "column workspace_bytes holds text 'big'"},
    {"UPDATE measurements SET workspace_bytes = -1 WHERE algo = 3", "column workspace_bytes holds -1"},
    {"UPDATE measurements SET algo = 4294967296 WHERE algo = 3", "column algo holds 4294967296, not a 32-bit integer"},
    {"UPDATE measurements SET time_ms = x'00' WHERE algo = 3", "column time_ms holds a blob"},
    {"UPDATE coverage SET measured_up_to = -5", "negative bound -5"},
};

// healthy_database with `damage` done to it.
std::string damaged_database(const TempDir& dir, const std::string& name, const Damage& damage) {
  const std::string path = healthy_database(dir, name);
  execute(path, damage.sql);
  return path;
}

TEST(StoredRows, ALookupRefusesAndNamesARowThatCannotBeAMeasurement) {
  for (const Damage& damage : kDamages) {
    SCOPED_TRACE(damage.sql);
    TempDir dir;
    const std::string path = damaged_database(dir, "system.db", damage);
    auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete, true));
    ASSERT_TRUE(db.ok()) << db.message();
    const auto found = (*db)->lookup(test_gpu(), layer_key(0, 8), CandidateKind::kLegacy);
    ASSERT_FALSE(found.ok()) << "planned with a row no measurement can be";
    EXPECT_NE(found.message().find(damage.named), std::string::npos) << found.message();
    EXPECT_NE(found.message().find(path), std::string::npos) << found.message();
  }
}

TEST(StoredRows, VerifyFindsEveryKindOfBadRowAndCountsThem) {
  for (const Damage& damage : kDamages) {
    SCOPED_TRACE(damage.sql);
    TempDir dir;
    const std::string path = damaged_database(dir, "system.db", damage);
    const CliResult verified = run({"db", "verify", "--database", path});
    EXPECT_EQ(verified.status, 1) << verified.out;
    EXPECT_NE(verified.err.find(damage.named), std::string::npos) << verified.err;
  }
  TempDir dir;
  const std::string path = healthy_database(dir, "two-bad.db");
  execute(path, "UPDATE measurements SET time_ms = -1 WHERE algo >= 2");
  const CliResult verified = run({"db", "verify", "--database", path});
  EXPECT_NE(verified.err.find("2 rows of measurements cannot be a measurement"), std::string::npos) << verified.err;
}

TEST(StoredRows, MergeRefusesABadSourceRowAndMergesNothing) {
  for (const Damage& damage : kDamages) {
    SCOPED_TRACE(damage.sql);
    TempDir dir;
    const std::string source = damaged_database(dir, "user.db", damage);
    const std::string target = (dir.path() / "system.db").string();
    const CliResult created = run({"db", "merge", "--from", source, "--into", target, "--create"});
    EXPECT_EQ(created.status, 1) << created.out;
    EXPECT_NE(created.err.find(damage.named), std::string::npos) << created.err;
    EXPECT_FALSE(exists(target)) << "a new target is named only once whole (tools/new_database.h)";
    ASSERT_TRUE(BenchmarkDatabase::open(target, database_options(JournalMode::kDelete)).ok());
    const CliResult merged = run({"db", "merge", "--from", source, "--into", target});
    EXPECT_EQ(merged.status, 1) << merged.out;
    EXPECT_NE(merged.err.find(damage.named), std::string::npos) << merged.err;
    auto db = BenchmarkDatabase::open(target, database_options(JournalMode::kDelete, true));
    ASSERT_TRUE(db.ok()) << db.message();
    const auto rows = (*db)->all_rows();
    ASSERT_TRUE(rows.ok()) << rows.message();
    EXPECT_TRUE(rows->empty()) << "a merge that met a bad row merged " << rows->size() << " rows";
  }
}

TEST(StoredRows, AWholeNumberOfMillisecondsIsStillATime) {
  // SQLite may keep 2.0 as the integer 2: that is a time, not text.
  TempDir dir;
  const std::string path = healthy_database(dir, "system.db");
  execute(path, "UPDATE measurements SET time_ms = 2 WHERE algo = 3");
  auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete, true));
  ASSERT_TRUE(db.ok()) << db.message();
  const auto found = (*db)->lookup(test_gpu(), layer_key(0, 8), CandidateKind::kLegacy);
  ASSERT_TRUE(found.ok()) << found.message();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->rows.size(), 4u);
  EXPECT_TRUE((*db)->verify().ok());
}

}  // namespace
}  // namespace ucudnn::testing
