// The benchmark database against what a hostile session did to it: writers killed in the
// middle of a rollback-journal transaction, file names that look like URI syntax, a journal mode
// that cannot be switched, side files and permissions left behind (damaged files and SQLite results
// that must be checked: test_database_damage.cpp). Each test failed before its fix, except the ones
// that say they guard a property that already held.

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <thread>

#include "core/conv_layer.h"
#include "store/database.h"
#include "store/sqlite.h"
#include "database_test_support.h"
#include "test_helpers.h"

namespace ucudnn::testing {
using store::BenchmarkDatabase;
namespace {

using ucudnn::testing::TempDir;
namespace fs = std::filesystem;

long long row_count(BenchmarkDatabase& db) {
  auto stats = db.stats();
  EXPECT_TRUE(stats.ok()) << stats.message();
  return stats.ok() ? stats->rows : -1;
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

TEST(DatabaseHardening, KilledRollbackJournalWriterIsRolledBackWhenLookingAtTheFile) {
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
TEST(DatabaseHardening, KilledRollbackJournalWriterIsRolledBackWhenWriting) {
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
TEST(DatabaseHardening, ImportKilledWhileWritingLeavesOnlyCommittedRows) {
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

// ---- file names with URI syntax in them ---------------------------------------------------------

const char* const kUriLikeNames[] = {"h#1.db", "q?x.db", "p%41.db", "s p&mode=ro.db"};

TEST(DatabaseHardening, FileNamesWithUriSyntaxOpenTheirOwnFileEveryTime) {
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

TEST(DatabaseHardening, ForeignFileAtAUriLikeNameIsRefusedByteIdentical) {
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
    ASSERT_EQ(sqlite3_exec(raw, "CREATE TABLE photos(id INTEGER); INSERT INTO photos VALUES(1)", nullptr, nullptr,
                           nullptr),
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

// ---- the journal mode asked for is the one used -------------------------------------------------

TEST(DatabaseHardening, AskingForDeleteWhileAnotherConnectionUsesWalFailsNamingTheMode) {
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

// ---- nothing left beside a file that was refused, no stuck permissions --------------------------

TEST(DatabaseHardening, RefusingCorruptOrForeignWalFilesCreatesNothingBesideThem) {
  TempDir dir;
  std::mt19937 rng(12);
  const std::string damaged = (dir.path() / "damaged.db").string();
  {
    auto db = BenchmarkDatabase::open(damaged, database_options(JournalMode::kWal));
    ASSERT_TRUE(db.ok()) << db.message();
    for (int k = 0; k < 40; ++k)
      ASSERT_TRUE((*db)->store(test_gpu(), layer_key(k, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 6)).ok());
  }
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(damaged + suffix);  // closed: nobody uses them
  std::string bytes = read_bytes(damaged);
  ASSERT_EQ(bytes[18], 2) << "a WAL file";
  ASSERT_GT(bytes.size(), 3 * 4096u);
  for (std::size_t i = 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>(rng());
  write_bytes(damaged, bytes);

  const std::string foreign = (dir.path() / "foreign.db").string();
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(foreign.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "PRAGMA journal_mode=wal; CREATE TABLE photos(id INTEGER)", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(foreign + suffix);

  for (const std::string& path : {damaged, foreign}) {
    SCOPED_TRACE(path);
    const std::string before = read_bytes(path);
    for (bool read_only : {false, true}) {
      auto refused = BenchmarkDatabase::open(path, database_options(JournalMode::kAuto, read_only));
      ASSERT_FALSE(refused.ok());
      EXPECT_NE(refused.message().find("untouched"), std::string::npos) << refused.message();
    }
    EXPECT_EQ(read_bytes(path), before);
    for (const char* suffix : {"-wal", "-shm", "-journal"}) {
      EXPECT_FALSE(exists(path + suffix)) << path + suffix << " was created";
    }
  }
}

TEST(DatabaseHardening, LookingAtAReadOnlyWalFileLeavesNoSharedMemoryFileBehind) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  TempDir dir;
  ASSERT_EQ(chmod(dir.path().c_str(), 0777), 0);  // others may create files beside the database
  const std::string path = (dir.path() / "ro.db").string();
  ASSERT_TRUE(write_one_kernel(path, JournalMode::kWal));
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(path + suffix);
  ASSERT_EQ(chmod(path.c_str(), 0444), 0);
  const std::string before = read_bytes(path);

  // Another user looks, and tries to write: read-only, the rows are there, the write refused.
  const int looked = exit_status_as_unprivileged([&] {
    auto db = BenchmarkDatabase::open(path);
    if (!db) return 1;
    if (!(*db)->read_only()) return 2;
    auto found = (*db)->lookup(test_gpu(), layer_key(1, 4), CandidateKind::kLegacy);
    if (!found || !*found || (*found)->rows.size() != 3) return 3;
    if ((*db)->store(test_gpu(), layer_key(2, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 1))) return 4;
    return 0;
  });
  ASSERT_EQ(looked, 0) << "1 open, 2 not read-only, 3 lookup, 4 write accepted";
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_FALSE(exists(path + "-shm")) << "a read-only -shm would make every later write fail";
  EXPECT_FALSE(exists(path + "-wal"));

  // Made writable for that user, the file takes writes at once.
  ASSERT_EQ(chmod(path.c_str(), 0666), 0);
  const int wrote = exit_status_as_unprivileged([&] {
    auto db = BenchmarkDatabase::open(path);
    if (!db) {
      std::fprintf(stderr, "%s\n", db.message().c_str());
      return 1;
    }
    if ((*db)->read_only()) return 2;
    auto stored = (*db)->store(test_gpu(), layer_key(2, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 1));
    if (!stored) {
      std::fprintf(stderr, "%s\n", stored.message().c_str());
      return 3;
    }
    return 0;
  });
  EXPECT_EQ(wrote, 0) << "1 open, 2 read-only, 3 write failed";
}

TEST(DatabaseHardening, ASharedMemoryFileThatCannotBeWrittenIsNamed) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  TempDir dir;
  ASSERT_EQ(chmod(dir.path().c_str(), 0777), 0);
  const std::string path = (dir.path() / "stale.db").string();
  ASSERT_TRUE(write_one_kernel(path, JournalMode::kWal));
  fs::remove(path + "-wal");
  fs::remove(path + "-shm");
  ASSERT_EQ(chmod(path.c_str(), 0666), 0);
  write_bytes(path + "-shm", "");  // left by someone else, read-only for others
  ASSERT_EQ(chmod((path + "-shm").c_str(), 0444), 0);
  const int status = exit_status_as_unprivileged([&] {
    auto db = BenchmarkDatabase::open(path);
    if (db.ok()) {
      // Acceptable only if writes really work.
      return (*db)->store(test_gpu(), layer_key(2, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 1)).ok() ? 0 : 1;
    }
    if (db.message().find(path + "-shm") == std::string::npos) {
      std::fprintf(stderr, "%s\n", db.message().c_str());
      return 2;
    }
    return 0;
  });
  EXPECT_EQ(status, 0) << "1: opened for writing, but writes fail; 2: the error does not name the -shm file";
}

}  // namespace
}  // namespace ucudnn::testing
