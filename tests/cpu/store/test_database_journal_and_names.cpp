// What a database is called and which journal mode it is left in: a name SQLite gives side files
// is refused (the next open of the main file would delete it); `auto` keeps the mode an existing
// file is in (no command silently turns a shared rollback-journal database into WAL); a switch held
// up by another process that switches too is tried with the connection closed, so neither holds
// the other up; a failed switch names what asked for the mode.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cli_test_support.h"
#include "database_test_support.h"
#include "store/database.h"
#include "test_helpers.h"

namespace ucudnn::testing {
using store::BenchmarkDatabase;
namespace {

using store::BenchmarkDatabase;

// Byte 18 of an SQLite header: 1 for a rollback journal, 2 for WAL.
int header_journal(const std::string& path) { return read_bytes(path).size() > 18 ? read_bytes(path)[18] : -1; }

std::string database_with_rows(const TempDir& dir, const std::string& name, JournalMode mode) {
  const std::string path = (dir.path() / name).string();
  auto db = BenchmarkDatabase::open(path, database_options(mode));
  EXPECT_TRUE(db.ok()) << db.message();
  EXPECT_TRUE((*db)->store(test_gpu(), layer_key(0, 8), CandidateKind::kLegacy, SIZE_MAX, rows_for(8, 3)).ok());
  return path;
}

TEST(DatabaseNames, ANameSqliteGivesSideFilesIsRefusedByEveryCommand) {
  TempDir dir;
  const std::string source = database_with_rows(dir, "user.db", JournalMode::kDelete);
  const std::string main_file = (dir.path() / "sys.db").string();
  for (const std::string suffix : {"-journal", "-wal", "-shm", "-mj1A2B3C94F", "-mj0123ABCD"}) {
    SCOPED_TRACE(suffix);
    const std::string side = main_file + suffix;
    const CliResult merged = run({"db", "merge", "--from", source, "--into", side, "--create"});
    EXPECT_EQ(merged.status, 1) << merged.out;
    EXPECT_TRUE(testing::is_one_error_line(merged.err)) << merged.err;
    EXPECT_NE(merged.err.find("is the name SQLite gives the " + suffix.substr(1) + " file of '" + main_file + "'"),
              std::string::npos)
        << merged.err;
    EXPECT_FALSE(testing::exists(side)) << "created anyway";
    const CliResult imported = run({"db", "import", "--database", side, "--measurements", testing::alexnet_csv_path(),
                                    "--network", "alexnet", "--gpu-name", "X", "--compute-capability", "90",
                                    "--sm-count", "132", "--cudnn-version", "91400", "--cuda-version", "13000"});
    EXPECT_EQ(imported.status, 1) << imported.err;
    EXPECT_NE(imported.err.find("is the name SQLite gives"), std::string::npos) << imported.err;
    EXPECT_FALSE(testing::exists(side)) << "created anyway";
  }
  // A side file's name inside a longer name is an ordinary name.
  for (const std::string name : {"sys.db-journal.db", "wal", "x-mj0123", "x-walnut"}) {
    auto db = BenchmarkDatabase::open((dir.path() / name).string());
    EXPECT_TRUE(db.ok()) << name << ": " << db.message();
  }
}

TEST(DatabaseJournal, AutoKeepsTheModeAnExistingDatabaseIsIn) {
  TempDir dir;
  const std::string rollback = database_with_rows(dir, "system.db", JournalMode::kDelete);
  ASSERT_EQ(header_journal(rollback), 1);
  {
    auto db = BenchmarkDatabase::open(rollback, database_options(JournalMode::kAuto));
    ASSERT_TRUE(db.ok()) << db.message();
    EXPECT_EQ((*db)->journal_mode(), JournalMode::kDelete);
    EXPECT_TRUE((*db)->store(test_gpu(), layer_key(1, 8), CandidateKind::kLegacy, SIZE_MAX, rows_for(8, 2)).ok());
  }
  EXPECT_EQ(header_journal(rollback), 1) << "an import with the default journal made a rollback database WAL";

  const std::string wal = database_with_rows(dir, "wal.db", JournalMode::kWal);
  {
    auto db = BenchmarkDatabase::open(wal, database_options(JournalMode::kAuto));
    ASSERT_TRUE(db.ok()) << db.message();
    EXPECT_EQ((*db)->journal_mode(), store::journal_mode_for(wal));
  }
  // A new file gets what its file system suits, as before.
  auto fresh = BenchmarkDatabase::open((dir.path() / "new.db").string(), database_options(JournalMode::kAuto));
  ASSERT_TRUE(fresh.ok()) << fresh.message();
  EXPECT_EQ((*fresh)->journal_mode(), store::journal_mode_for((dir.path() / "new.db").string()));
}

TEST(DatabaseJournal, TwoOpensSwitchingTheSameFileDoNotHoldEachOtherUp) {
  TempDir dir;
  const std::string path = database_with_rows(dir, "system.db", JournalMode::kWal);
  ASSERT_EQ(header_journal(path), 2);
  // A third connection keeps both first tries from switching, so that both are waiting at once.
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &other, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "SELECT count(*) FROM measurements", nullptr, nullptr, nullptr), SQLITE_OK);
  std::vector<std::string> results(2);
  std::vector<std::thread> opens;
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < 2; ++i) {
    opens.emplace_back([&, i] {
      auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete, false, 8000));
      results[i] = db.ok() ? "ok" : db.message();
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  sqlite3_close(other);
  for (std::thread& open : opens) open.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(results[0], "ok");
  EXPECT_EQ(results[1], "ok");
  EXPECT_LT(seconds, 6.0) << "the two opens waited for each other";
  EXPECT_EQ(header_journal(path), 1);
}

TEST(DatabaseJournal, AFailedSwitchNamesWhatAskedForTheMode) {
  TempDir dir;
  const std::string path = database_with_rows(dir, "system.db", JournalMode::kWal);
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &other, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "SELECT count(*) FROM measurements", nullptr, nullptr, nullptr), SQLITE_OK);
  auto options = database_options(JournalMode::kDelete, false, 300);
  auto by_variable = BenchmarkDatabase::open(path, options);
  ASSERT_FALSE(by_variable.ok());
  EXPECT_NE(by_variable.message().find("'delete' (UCUDNN_DATABASE_JOURNAL)"), std::string::npos)
      << by_variable.message();
  options.journal_named_by = "--journal";
  auto by_option = BenchmarkDatabase::open(path, options);
  ASSERT_FALSE(by_option.ok());
  EXPECT_NE(by_option.message().find("'delete' (--journal)"), std::string::npos) << by_option.message();
  EXPECT_EQ(by_option.message().find("UCUDNN_DATABASE_JOURNAL"), std::string::npos) << by_option.message();
  sqlite3_close(other);
}

}  // namespace
}  // namespace ucudnn::testing
