// Rows and schemas that another program changed in a database file: every
// reader (lookups, `db verify`, `db merge`) applies the one row rule of core/row_rules.h, bounds
// the text it copies, refuses a file whose unique index is gone, and never reads a populated file
// as empty. Each test failed before its fix.

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/candidate_kinds.h"
#include "core/conv_op.h"
#include "core/engine_config.h"
#include "database_test_support.h"
#include "sqlite_rows.h"
#include "store/columns.h"
#include "store/database.h"
#include "store/rows.h"
#include "test_helpers.h"

namespace ucudnn::testing {
using store::BenchmarkDatabase;
namespace {

// Runs `sql` on the file as another program would, outside ucudnn.
void run_sql(const std::string& path, const std::string& sql) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  char* message = nullptr;
  const int rc = sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, &message);
  EXPECT_EQ(rc, SQLITE_OK) << sql << ": " << (message ? message : "");
  sqlite3_free(message);
  sqlite3_close(raw);
}

// A database with one kernel's legacy rows at micro-batch 8 (algorithms 0 to 2).
std::string database_with_rows(const TempDir& dir, const std::string& name) {
  const std::string path = (dir.path() / name).string();
  auto database = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete));
  EXPECT_TRUE(database.ok()) << database.message();
  if (!database) return path;
  const Status stored = (*database)->store(test_gpu(), layer_key(0, 8), CandidateKind::kLegacy, SIZE_MAX, rows_for(8, 3));
  EXPECT_TRUE(stored.ok()) << stored.message();
  return path;
}

TEST(UntrustedRows, RowsOutOfRangeAreRefusedByLookupsVerifyAndMerge) {
  const int forward_count = algo_count(ConvOp::kForward);
  const struct {
    std::string change;  // applied to algorithm 1's row
    std::string named;   // what the error must say
  } cases[] = {
      {"algo = " + std::to_string(forward_count), "algo " + std::to_string(forward_count)},  // the virtual one
      {"algo = 99", "algo 99"},
      {"math_type = 99", "math type 99"},
      {"math_type = -7", "math type -7"},
      {"micro_batch = 0", "micro-batch 0"},
  };
  TempDir dir;
  int number = 0;
  for (const auto& bad : cases) {
    SCOPED_TRACE(bad.change);
    const std::string path = database_with_rows(dir, "bad" + std::to_string(++number) + ".db");
    run_sql(path, "UPDATE measurements SET " + bad.change + " WHERE algo = 1");
    auto database = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete, /*read_only=*/true));
    ASSERT_TRUE(database.ok()) << database.message();

    if (bad.change.rfind("micro_batch", 0) != 0) {  // a row of micro-batch 0 is no row of batch 8's lookup
      const auto found = (*database)->lookup(test_gpu(), layer_key(0, 8), CandidateKind::kLegacy);
      ASSERT_FALSE(found.ok()) << "a lookup would plan with it";
      EXPECT_NE(found.message().find(bad.named), std::string::npos) << found.message();
    }
    const auto verified = (*database)->verify();
    ASSERT_FALSE(verified.ok()) << "db verify passed it";
    EXPECT_NE(verified.message().find(bad.named), std::string::npos) << verified.message();

    auto target = BenchmarkDatabase::open((dir.path() / ("into" + std::to_string(number) + ".db")).string(),
                                          database_options(JournalMode::kDelete));
    ASSERT_TRUE(target.ok()) << target.message();
    const auto merged = (*target)->merge_from(**database);
    ASSERT_FALSE(merged.ok()) << "db merge copied it";
    EXPECT_NE(merged.message().find("nothing merged"), std::string::npos) << merged.message();
    EXPECT_NE(merged.message().find(bad.named), std::string::npos) << merged.message();
    const auto rows = (*target)->all_rows();
    ASSERT_TRUE(rows.ok()) << rows.message();
    EXPECT_TRUE(rows->empty()) << "a failed merge stores nothing";
  }
}

TEST(UntrustedRows, StoringARowOutOfRangeIsRefusedByTheSameRule) {
  TempDir dir;
  auto database = BenchmarkDatabase::open((dir.path() / "a.db").string(), database_options(JournalMode::kDelete));
  ASSERT_TRUE(database.ok()) << database.message();
  std::vector<Measurement> rows = rows_for(8, 1);
  rows[0].candidate.math_type = 4;  // one past CUDNN_FMA_MATH
  const Status stored = (*database)->store(test_gpu(), layer_key(0, 8), CandidateKind::kLegacy, SIZE_MAX, rows);
  ASSERT_FALSE(stored.ok());
  EXPECT_NE(stored.message().find("math type 4 is not from 0 to 3"), std::string::npos) << stored.message();
  rows = rows_for(8, 1);
  rows[0].candidate.algorithm = algo_count(ConvOp::kBackwardFilter);
  const Status virtual_algo =
      (*database)->store(test_gpu(), small_layer_key("w", 8, 3, 8, ConvOp::kBackwardFilter), CandidateKind::kLegacy,
                         SIZE_MAX, rows);
  ASSERT_FALSE(virtual_algo.ok());
  EXPECT_NE(virtual_algo.message().find("algo " + std::to_string(algo_count(ConvOp::kBackwardFilter))),
            std::string::npos)
      << virtual_algo.message();
}

TEST(UntrustedRows, AnEngineIdBeyondItsBoundsIsRefusedBeforeItIsParsedOrCopied) {
  // The bounds of the id itself.
  std::string many_knobs = "eng1:";
  for (std::size_t knob = 0; knob <= kMaxEngineKnobs; ++knob) many_knobs += (knob ? ",k" : "k") + std::to_string(knob) + "=0";
  ASSERT_LE(many_knobs.size(), kMaxEngineIdBytes);
  const auto knobs = parse_engine_config(many_knobs);
  ASSERT_FALSE(knobs.ok());
  EXPECT_NE(knobs.message().find("more than " + std::to_string(kMaxEngineKnobs) + " knobs"), std::string::npos)
      << knobs.message();
  const std::string long_id = "eng1:k1=" + std::string(kMaxEngineIdBytes, '1');
  const auto too_long = parse_engine_config(long_id);
  ASSERT_FALSE(too_long.ok());
  EXPECT_NE(too_long.message().find("more than the limit of " + std::to_string(kMaxEngineIdBytes) + " bytes"),
            std::string::npos)
      << too_long.message();

  // In a file: refused by its length before it is copied out of SQLite, by lookups, verify and merge.
  TempDir dir;
  const std::string path = database_with_rows(dir, "engine.db");
  run_sql(path, "UPDATE measurements SET algo = -1, engine = 'eng1:k1=' || hex(zeroblob(400000)) WHERE algo = 1");
  auto database = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete, /*read_only=*/true));
  ASSERT_TRUE(database.ok()) << database.message();
  const auto found = (*database)->lookup(test_gpu(), layer_key(0, 8), CandidateKind::kEngine);
  EXPECT_TRUE(found.ok()) << "no engine coverage: nothing read, " << found.message();
  const auto verified = (*database)->verify();
  ASSERT_FALSE(verified.ok());
  EXPECT_NE(verified.message().find("column engine holds a text of 800008 bytes"), std::string::npos)
      << verified.message();
  auto target = BenchmarkDatabase::open((dir.path() / "into.db").string(), database_options(JournalMode::kDelete));
  ASSERT_TRUE(target.ok()) << target.message();
  const auto merged = (*target)->merge_from(**database);
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.message().find("more than the limit of"), std::string::npos) << merged.message();
}

// Over kMaxStoredValueBytes, a value is not even copied out of the file to be measured: its
// statement fails inside SQLite. (A 133 MB engine id was refused, after 260 MiB were read.) Each
// reader runs in a child whose peak memory is reset first and read after. A lookup of the value's
// own kernel is refused too, but not bounded: SQLite reads a whole index entry to compare it with
// the range it scans, which no limit of SQLite's bounds (the entry once, not copied again). Export
// and merge walk every kernel so: they look at every value first, in a pass that copies none.
TEST(UntrustedRows, AValueLargerThanAnyUcudnnWritesIsRefusedUnread) {
  TempDir dir;
  const std::string path = database_with_rows(dir, "huge.db");
  run_sql(path,
          "UPDATE measurements SET algo = -1, engine = 'eng1:k1=' || hex(zeroblob(24000000)) WHERE algo = 1; "
          "UPDATE coverage SET candidates = " +
              std::to_string(static_cast<int>(CandidateKind::kEngine)));
  const auto peak_kib = [] {  // VmHWM, the peak resident memory since the last reset
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
    }
    return -1L;
  };
  const auto reader = [&](const char* which) {
    SCOPED_TRACE(which);
    const pid_t child = fork();
    if (child == 0) {
      if (!(std::ofstream("/proc/self/clear_refs") << "5")) _exit(77);  // resets VmHWM
      const long before = peak_kib();
      auto database = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete, /*read_only=*/true));
      std::string message;
      if (!database) {
        message = database.message();
      } else if (std::string(which) == "lookup") {
        message = (*database)->lookup(test_gpu(), layer_key(0, 8), CandidateKind::kEngine).message();
      } else if (std::string(which) == "verify") {
        message = (*database)->verify().message();
      } else if (std::string(which) == "stats") {
        message = (*database)->stats().message();
      } else if (std::string(which) == "merge") {
        auto target = BenchmarkDatabase::open(path + "-into.db", database_options(JournalMode::kDelete));
        message = target ? (*target)->merge_from(**database).message() : target.message();
      } else {  // as `db export` reads: kernel by kernel, through the unique index
        message = (*database)
                      ->read_rows([](store::RowReader& rows) {
                        return rows.for_each_row([](const store::StoredRow&) { return Status::success(); });
                      })
                      .message();
      }
      const bool refused = message.find("larger than any ucudnn writes") != std::string::npos;
      const long grown = peak_kib() - before;
      std::fprintf(stderr, "%s: grew %ld KiB: %s\n", which, grown, message.c_str());
      const bool bounded = std::string(which) == "lookup" || grown < 16 * 1024;
      _exit(refused && bounded ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) GTEST_SKIP() << "/proc/self/clear_refs is not writable";
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "read the 48 MB value, or did not refuse it (above)";
  };
  reader("lookup");
  reader("verify");
  reader("stats");
  reader("export");
  reader("merge");
}

// `Fwd` or `FWD` is no op ucudnn writes, and a database's queries compare ops as they are: rows and
// coverage spelled so were read by the settings' forgiving parser, so they passed `db verify`,
// `db merge` raised the target's coverage for rows it did not copy, `db export` dropped them with
// success and `db stats` counted `FWD` beside `fwd` as other kernels.
TEST(UntrustedRows, AnOpNotSpelledAsUcudnnWritesItIsRefusedByEveryReader) {
  TempDir dir;
  for (const std::string table : {"measurements", "coverage"}) {
    for (const std::string spelling : {"FWD", "Fwd", "f-wd"}) {
      SCOPED_TRACE(table + " " + spelling);
      const std::string path = database_with_rows(dir, table + spelling + ".db");
      run_sql(path, "UPDATE " + table + " SET op = '" + spelling + "'");
      auto database = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete, /*read_only=*/true));
      ASSERT_TRUE(database.ok()) << database.message();
      const std::string named = "op '" + spelling + "', not one ucudnn writes";
      const auto verified = (*database)->verify();
      EXPECT_NE(verified.message().find(named), std::string::npos) << "db verify passed it: " << verified.message();
      const auto stats = (*database)->stats();
      EXPECT_NE(stats.message().find(named), std::string::npos) << "db stats counted it: " << stats.message();
      if (table == "measurements") {
        const auto rows = (*database)->all_rows();
        EXPECT_NE(rows.message().find(named), std::string::npos) << "read as a row: " << rows.message();
      }
      const Status exported = (*database)->read_rows([](store::RowReader&) { return Status::success(); });
      EXPECT_NE(exported.message().find(named), std::string::npos) << "db export read it: " << exported.message();
      auto target = BenchmarkDatabase::open((dir.path() / ("into-" + table + spelling + ".db")).string(),
                                            database_options(JournalMode::kDelete));
      ASSERT_TRUE(target.ok()) << target.message();
      const auto merged = (*target)->merge_from(**database);
      EXPECT_NE(merged.message().find(named), std::string::npos) << "db merge took it: " << merged.message();
      EXPECT_EQ(sqlite_rows((*target)->file(), "SELECT count(*) FROM coverage"),
                (std::vector<std::vector<std::string>>{{"0"}}))
          << "coverage raised for rows not copied";
    }
  }
}

// The unique index must keep one row per key: a plain index, a partial one, one over the key and
// the time (which lets a cheaper duplicate in) or one that compares ops without case only looked
// like it, passed `db verify` and let a lookup plan with a duplicate. The same for coverage's key.
TEST(UntrustedRows, AKeyThatDoesNotKeepOneRowPerKeyIsRefusedWhateverItsName) {
  const std::string key = store::key_column_list(store::columns_of<store::StoredRow>());
  const std::string key_nocase = [&] {
    std::string columns = key;
    columns.replace(columns.find("op"), 2, "op COLLATE NOCASE");
    return columns;
  }();
  const struct {
    std::string sql;
    std::string named;
  } cases[] = {
      {"CREATE INDEX measurements_key ON measurements(" + key + ")", "the index measurements_key is not unique"},
      {"CREATE UNIQUE INDEX measurements_key ON measurements(" + key + ") WHERE algo >= 0",
       "the index measurements_key is partial"},
      {"CREATE UNIQUE INDEX measurements_key ON measurements(" + key + ", time_ms)",
       "the index measurements_key also holds time_ms, not a key column"},
      {"CREATE UNIQUE INDEX measurements_key ON measurements(" + key_nocase + ")",
       "the index measurements_key compares the column op by NOCASE"},
      {"CREATE UNIQUE INDEX measurements_key ON measurements(" + key +
           "); ALTER TABLE coverage RENAME TO old; "
           "CREATE TABLE coverage(gpu_name TEXT NOT NULL, compute_capability INTEGER NOT NULL, sm_count INTEGER NOT "
           "NULL, cudnn_version INTEGER NOT NULL, cuda_runtime_version INTEGER NOT NULL, op TEXT NOT NULL, layer TEXT "
           "NOT NULL, micro_batch INTEGER NOT NULL, candidates INTEGER NOT NULL DEFAULT 0, measured_up_to INTEGER NOT "
           "NULL, PRIMARY KEY(gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, op, layer, "
           "micro_batch, candidates, measured_up_to)); INSERT INTO coverage SELECT * FROM old; DROP TABLE old",
       "the primary key of coverage also holds measured_up_to, not a key column"},
  };
  TempDir dir;
  int number = 0;
  for (const auto& bad : cases) {
    SCOPED_TRACE(bad.named);
    const std::string path = database_with_rows(dir, "key" + std::to_string(++number) + ".db");
    run_sql(path, "DROP INDEX measurements_key; " + bad.sql);
    for (const bool read_only : {true, false}) {
      const auto refused = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete, read_only));
      ASSERT_FALSE(refused.ok()) << "opened " << (read_only ? "read-only" : "to write");
      EXPECT_NE(refused.message().find(bad.named), std::string::npos) << refused.message();
    }
    auto options = database_options(JournalMode::kDelete, /*read_only=*/true);
    options.check_schema = false;  // as `db verify` opens it
    auto verifying = BenchmarkDatabase::open(path, options);
    ASSERT_TRUE(verifying.ok()) << verifying.message();
    const auto verified = (*verifying)->verify();
    EXPECT_NE(verified.message().find(bad.named), std::string::npos) << "db verify passed it: " << verified.message();
  }
}

TEST(UntrustedRows, AFileWithoutItsUniqueIndexIsRefusedForReadingAndWriting) {
  TempDir dir;
  const std::string path = database_with_rows(dir, "no-index.db");
  // A cheaper duplicate of algorithm 1's row, which the dropped index no longer keeps out.
  run_sql(path,
          "DROP INDEX measurements_key; INSERT INTO measurements SELECT * FROM measurements WHERE algo = 1; "
          "UPDATE measurements SET time_ms = 0.001 WHERE rowid = (SELECT max(rowid) FROM measurements)");
  for (const bool read_only : {true, false}) {
    SCOPED_TRACE(read_only ? "read-only" : "writable");
    const auto refused = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete, read_only));
    ASSERT_FALSE(refused.ok()) << "a lookup would plan with the duplicate";
    EXPECT_NE(refused.message().find("the index measurements_key is missing"), std::string::npos) << refused.message();
    EXPECT_NE(refused.message().find("changed outside ucudnn"), std::string::npos) << refused.message();
  }
  // `db verify` still opens it, to name what is wrong.
  auto options = database_options(JournalMode::kDelete, /*read_only=*/true);
  options.check_schema = false;
  auto verifying = BenchmarkDatabase::open(path, options);
  ASSERT_TRUE(verifying.ok()) << verifying.message();
  const auto verified = (*verifying)->verify();
  ASSERT_FALSE(verified.ok());
  EXPECT_NE(verified.message().find("measurements_key is missing"), std::string::npos) << verified.message();
}

TEST(UntrustedRows, APopulatedFileWhoseSchemaVersionSaysZeroIsNeverReadAsEmpty) {
  TempDir dir;
  const std::string path = database_with_rows(dir, "zero.db");
  run_sql(path, "UPDATE meta SET value = '0' WHERE key = 'schema_version'");
  for (const bool read_only : {true, false}) {
    SCOPED_TRACE(read_only ? "read-only" : "writable");
    const auto refused = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete, read_only));
    ASSERT_FALSE(refused.ok()) << "its rows would read as none";
    EXPECT_NE(refused.message().find("schema version 0 is not one ucudnn writes"), std::string::npos)
        << refused.message();
  }
  // Left as it was: its three rows are there for whoever repairs it.
  EXPECT_EQ(sqlite_rows(path, "SELECT count(*) FROM measurements"), (std::vector<std::vector<std::string>>{{"3"}}));
}

}  // namespace
}  // namespace ucudnn::testing
