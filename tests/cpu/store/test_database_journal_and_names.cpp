// What a database is called and which journal mode it is left in: a name SQLite gives side files
// is refused (the next open of the main file would delete it); a name with URI syntax in it is the
// file of that name; `auto` keeps the mode an existing file is in (no command silently turns a
// shared rollback-journal database into WAL); the mode asked for is the mode used, or the open fails
// naming it; a switch held up by another process that switches too is tried with the connection
// closed, so neither holds the other up; a failed switch names what asked for the mode; a writer
// killed in the middle of a rollback-journal transaction is rolled back by the next open, looking
// or writing.

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "cli_test_support.h"
#include "database_test_support.h"
#include "store/database.h"
#include "store/journal.h"
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

// The rows `db` holds; -1 where it cannot count them.
long long row_count(BenchmarkDatabase& db) {
  auto stats = db.stats();
  EXPECT_TRUE(stats.ok()) << stats.message();
  return stats.ok() ? stats->rows : -1;
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

// ---- file names with URI syntax in them ---------------------------------------------------------

const char* const kUriLikeNames[] = {"h#1.db", "q?x.db", "p%41.db", "s p&mode=ro.db"};

TEST(DatabaseNames, FileNamesWithUriSyntaxOpenTheirOwnFileEveryTime) {
  TempDir dir;
  for (const char* name : kUriLikeNames) {
    SCOPED_TRACE(name);
    const std::string path = (dir.path() / name).string();
    for (int k = 0; k < 3; ++k) {
      auto db = BenchmarkDatabase::open(path);
      ASSERT_TRUE(db.ok()) << db.message();
      ASSERT_TRUE((*db)->store(test_gpu(), layer_key(k, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 2)).ok());
    }
    auto looked = BenchmarkDatabase::open(path, database_options(JournalMode::kAuto, true));
    ASSERT_TRUE(looked.ok()) << looked.message();
    EXPECT_EQ(row_count(**looked), 6);
    EXPECT_TRUE((*looked)->verify().ok());
  }
  for (const std::string& name : names_in(dir.path())) {
    bool ours = false;
    for (const char* own : kUriLikeNames) ours = ours || name.rfind(own, 0) == 0;
    EXPECT_TRUE(ours) << "a file of another name was made: " << name;
  }
}

TEST(DatabaseNames, ForeignFileAtAUriLikeNameIsRefusedByteIdentical) {
  TempDir dir;
  // "p%41.db" decoded is "pA.db": let that name be a healthy ucudnn database.
  const std::string decoy = (dir.path() / "pA.db").string();
  ASSERT_TRUE(BenchmarkDatabase::open(decoy, database_options(JournalMode::kDelete)).ok());
  const std::string decoy_bytes = read_bytes(decoy);
  for (const char* name : kUriLikeNames) {
    SCOPED_TRACE(name);
    const std::string path = (dir.path() / name).string();
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr), SQLITE_OK);
    ASSERT_EQ(
        sqlite3_exec(raw, "CREATE TABLE photos(id INTEGER); INSERT INTO photos VALUES(1)", nullptr, nullptr, nullptr),
        SQLITE_OK);
    sqlite3_close(raw);
    const std::string before = read_bytes(path);
    for (int attempt = 0; attempt < 2; ++attempt) {
      auto refused = BenchmarkDatabase::open(path);
      ASSERT_FALSE(refused.ok());
      EXPECT_NE(refused.message().find("not a ucudnn"), std::string::npos) << refused.message();
    }
    EXPECT_EQ(read_bytes(path), before) << "header bytes 18-19 are the journal mode";
    EXPECT_FALSE(exists(path + "-wal") || exists(path + "-shm") || exists(path + "-journal"));
  }
  EXPECT_EQ(read_bytes(decoy), decoy_bytes);
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

// ---- the journal mode asked for is the one used -------------------------------------------------

TEST(DatabaseJournal, AskingForDeleteWhileAnotherConnectionUsesWalFailsNamingTheMode) {
  TempDir dir;
  const std::string path = (dir.path() / "wal.db").string();
  ASSERT_TRUE(write_one_kernel(path, JournalMode::kWal));
  sqlite3* reader = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &reader, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(reader, "SELECT count(*) FROM measurements", nullptr, nullptr, nullptr), SQLITE_OK);

  auto refused = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete, false, 300));
  EXPECT_FALSE(refused.ok()) << "it said delete, and stayed in "
                             << (refused.ok() && refused.value()->journal_mode() == JournalMode::kDelete ? "WAL" : "?");
  if (!refused.ok()) {
    EXPECT_NE(refused.message().find("journal mode 'delete'"), std::string::npos) << refused.message();
    EXPECT_NE(refused.message().find("'wal'"), std::string::npos) << refused.message();
  }
  sqlite3_close(reader);

  // Once the other connection has gone, the switch succeeds and the file says so.
  auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete, false, 300));
  ASSERT_TRUE(db.ok()) << db.message();
  EXPECT_EQ((*db)->journal_mode(), JournalMode::kDelete);
  EXPECT_EQ(read_bytes(path)[18], 1) << "rollback journal in the header";
  EXPECT_EQ(row_count(**db), 3);
}

// ---- a writer killed in rollback-journal mode ---------------------------------------------------

// A database of `committed` rows in `delete` journal mode, and a child that began a large write
// transaction on it (its pages spilled into the file: the small cache forces it) and was killed
// with SIGKILL before committing: the file is half written, the hot -journal holds the pages that
// make it whole again.
void leave_hot_journal(const std::string& path, int committed) {
  {
    auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete));
    ASSERT_TRUE(db.ok()) << db.message();
    ASSERT_EQ((*db)->store_rows(stored_rows(test_gpu(), committed)).value(), committed);
  }
  const std::string before = read_bytes(path);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    sqlite3* raw = nullptr;
    if (sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) _exit(2);
    const char* sql =
        "PRAGMA cache_size=10; BEGIN IMMEDIATE; "
        "INSERT INTO measurements(gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, op, "
        "layer, micro_batch, algo, math_type, deterministic, time_ms, workspace_bytes, measured_at) "
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000) "
        "SELECT 'Never committed', 90, 132, 91400, 13000, 'fwd', 'uncommitted-' || i, 1, 0, 0, 1, 1.0, 0, 'x' FROM n";
    if (sqlite3_exec(raw, sql, nullptr, nullptr, nullptr) != SQLITE_OK) _exit(3);
    kill(getpid(), SIGKILL);  // no COMMIT, no ROLLBACK, no close
    _exit(4);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer must die mid-transaction; exit " << WEXITSTATUS(status);
  ASSERT_TRUE(exists(path + "-journal")) << "a hot journal";
  ASSERT_NE(read_bytes(path), before) << "the writer's uncommitted pages are in the file";
}

TEST(DatabaseJournal, KilledRollbackJournalWriterIsRolledBackWhenLookingAtTheFile) {
  TempDir dir;
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
  const std::string path = (dir.path() / "killed.db").string();
  leave_hot_journal(path, 400);

  // A process that may not write the file cannot roll the journal back: it says so, naming the
  // journal, and never reads the half-written file as if it were whole.
  if (geteuid() == 0) {
    const int status = exit_status_as_unprivileged([&] {
      auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete, true));
      if (db.ok()) return 1;
      if (db.message().find(path + "-journal") == std::string::npos) {
        std::fprintf(stderr, "%s\n", db.message().c_str());
        return 2;
      }
      return 0;
    });
    EXPECT_EQ(status, 0) << "1: opened a half-written file, 2: the error does not name the journal";
  }

  // Looking (db stats, verify, export) rolls it back as SQLite does on a normal open: exactly
  // the committed rows, and a healthy file.
  auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete, true));
  ASSERT_TRUE(db.ok()) << db.message();
  EXPECT_EQ(row_count(**db), 400);
  EXPECT_TRUE((*db)->verify().ok()) << (*db)->verify().message();
  EXPECT_FALSE(exists(path + "-journal"));
}

// A guard: a writing open already recovered here before the fix.
TEST(DatabaseJournal, KilledRollbackJournalWriterIsRolledBackWhenWriting) {
  TempDir dir;
  const std::string path = (dir.path() / "killed.db").string();
  leave_hot_journal(path, 250);
  for (JournalMode mode : {JournalMode::kDelete, JournalMode::kAuto}) {
    auto db = BenchmarkDatabase::open(path, database_options(mode));
    ASSERT_TRUE(db.ok()) << db.message();
    EXPECT_EQ(row_count(**db), 250);
    EXPECT_TRUE((*db)->verify().ok());
  }
  auto db = BenchmarkDatabase::open(path);
  ASSERT_TRUE(db.ok()) << db.message();
  EXPECT_TRUE((*db)->store(test_gpu(), layer_key(1, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 2)).ok());
  EXPECT_EQ(row_count(**db), 252);
}

// An import killed while it writes, through the library.
TEST(DatabaseJournal, ImportKilledWhileWritingLeavesOnlyCommittedRows) {
  TempDir dir;
  const std::string path = (dir.path() / "import.db").string();
  {
    auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete));
    ASSERT_TRUE(db.ok()) << db.message();
    ASSERT_EQ((*db)->store_rows(stored_rows(test_gpu(), 1000)).value(), 1000);
  }
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete));
    if (!db) _exit(2);
    DeviceIdentity other = test_gpu();
    other.gpu_name = "Killed import";
    (void)(*db)->store_rows(stored_rows(other, 400000));
    _exit(3);
  }
  // Kill it once its transaction has begun writing.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!exists(path + "-journal") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the import finished before it was killed";

  auto looked = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete, true));
  ASSERT_TRUE(looked.ok()) << looked.message();
  EXPECT_EQ(row_count(**looked), 1000);
  EXPECT_TRUE((*looked)->verify().ok());
}

}  // namespace
}  // namespace ucudnn::testing
