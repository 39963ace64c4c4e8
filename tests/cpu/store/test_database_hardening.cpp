// The benchmark database against what an attack session did to it (issue 12): writers killed
// in the middle of a rollback-journal transaction, file names that look like URI syntax, a
// journal mode that cannot be switched, side files and permissions left behind, and errors of
// SQLite that must never be dropped. Each test failed before its fix, except the ones marked
// "regression guard" (they passed before too and keep the property).

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
#include "folder_namespaces.h"

namespace ucudnn::testing {
namespace {

using ucudnn::testing::TempDir;
namespace fs = std::filesystem;

// `count` rows of distinct layers for `identity`.
std::vector<StoredRow> stored_rows(const DeviceIdentity& identity, int count, int first_layer = 0,
                                   const std::string& prefix = "layer-signature-") {
  std::vector<StoredRow> rows;
  for (int i = 0; i < count; ++i) {
    StoredRow row;
    row.identity = identity;
    row.layer = prefix + std::to_string(first_layer + i / 8);
    row.measurement.micro_batch = 1 + i % 8;
    row.measurement.algo = 0;
    row.measurement.time_ms = 0.5 + i;
    row.measured_at = "2026-01-01T00:00:00Z";
    rows.push_back(row);
  }
  return rows;
}

long long row_count(BenchmarkDatabase& db) {
  auto stats = db.stats();
  EXPECT_TRUE(stats.ok()) << stats.message();
  return stats.ok() ? stats->rows : -1;
}

// Runs `body` in a child process, as the unprivileged user `nobody` where the tests run as root
// (root may write anything); returns the child's exit status, or -1 where it was signalled.
template <typename Body>
int in_child(bool as_nobody, Body body) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (as_nobody && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(100);
    _exit(body());
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -2;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// ---- 1. a writer killed in rollback-journal mode ----------------------------------------------

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
    const int status = in_child(true, [&] {
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

// Regression guard: a writing open already recovered here before the fix.
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

// The issue's own repro, through the library: an import killed while it writes.
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

// ---- 2. file names with URI syntax in them ----------------------------------------------------

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

// ---- 3. the journal mode asked for is the one used --------------------------------------------

TEST(DatabaseHardening, AskingForDeleteWhileAnotherConnectionUsesWalFailsNamingTheMode) {
  TempDir dir;
  const std::string path = (dir.path() / "wal.db").string();
  {
    auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kWal));
    ASSERT_TRUE(db.ok()) << db.message();
    ASSERT_TRUE((*db)->store(test_gpu(), layer_key(1, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 3)).ok());
  }
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

// ---- 5. nothing left beside a file that was refused, no stuck permissions ----------------------

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
  {
    auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kWal));
    ASSERT_TRUE(db.ok()) << db.message();
    ASSERT_TRUE((*db)->store(test_gpu(), layer_key(1, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 3)).ok());
  }
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(path + suffix);
  ASSERT_EQ(chmod(path.c_str(), 0444), 0);
  const std::string before = read_bytes(path);

  // Another user looks, and tries to write: read-only, the rows are there, the write refused.
  const int looked = in_child(true, [&] {
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
  const int wrote = in_child(true, [&] {
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
  {
    auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kWal));
    ASSERT_TRUE(db.ok()) << db.message();
    ASSERT_TRUE((*db)->store(test_gpu(), layer_key(1, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 3)).ok());
  }
  fs::remove(path + "-wal");
  fs::remove(path + "-shm");
  ASSERT_EQ(chmod(path.c_str(), 0666), 0);
  write_bytes(path + "-shm", "");  // left by someone else, read-only for others
  ASSERT_EQ(chmod((path + "-shm").c_str(), 0444), 0);
  const int status = in_child(true, [&] {
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

// ---- 6. results that must be checked ----------------------------------------------------------

TEST(DatabaseHardening, AFailedBindFailsTheStatement) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &raw), SQLITE_OK);
  SqliteConnection db(raw);
  auto statement = Statement::prepare(raw, "SELECT ?1");
  ASSERT_TRUE(statement.ok()) << statement.message();
  statement->bind(2, std::int64_t{7});  // there is no parameter 2
  const int rc = statement->step();
  EXPECT_EQ(rc, SQLITE_RANGE) << "the statement ran without its value";
  EXPECT_NE(statement->error(rc).find("parameter 2"), std::string::npos) << statement->error(rc);
  statement->reset();
  statement->bind(1, std::int64_t{7});
  EXPECT_EQ(statement->step(), SQLITE_ROW);
  EXPECT_EQ(statement->column_int(0), 7);
}

void set_schema_version(const std::string& path, const std::string& value) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  sqlite3_stmt* update = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "UPDATE meta SET value = ?1 WHERE key = 'schema_version'", -1, &update, nullptr),
            SQLITE_OK);
  sqlite3_bind_text(update, 1, value.c_str(), -1, SQLITE_TRANSIENT);
  EXPECT_EQ(sqlite3_step(update), SQLITE_DONE);
  sqlite3_finalize(update);
  sqlite3_close(raw);
}

TEST(DatabaseHardening, AHugeOrGarbageSchemaVersionIsRefusedNamingIt) {
  TempDir dir;
  for (const std::string version : {"99999999999", "2147483648", "1e3", "-1"}) {
    SCOPED_TRACE(version);
    const std::string path = (dir.path() / ("v" + std::to_string(version.size()) + version.substr(0, 1) + ".db")).string();
    ASSERT_TRUE(BenchmarkDatabase::open(path, database_options(JournalMode::kDelete)).ok());
    set_schema_version(path, version);
    const std::string before = read_bytes(path);
    Expected<std::unique_ptr<BenchmarkDatabase>> refused = Error{"not run"};
    EXPECT_NO_THROW(refused = BenchmarkDatabase::open(path));
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.message().find("'" + version + "'"), std::string::npos) << refused.message();
    EXPECT_EQ(refused.message().find("stoi"), std::string::npos) << refused.message();
    EXPECT_EQ(read_bytes(path), before);
  }
}

TEST(DatabaseHardening, ADamagedMetaPageIsReportedAsCorruption) {
  TempDir dir;
  const std::string path = (dir.path() / "meta.db").string();
  {
    auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete));
    ASSERT_TRUE(db.ok()) << db.message();
    ASSERT_TRUE((*db)->store(test_gpu(), layer_key(1, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 3)).ok());
  }
  int root_page = 0, page_size = 0;
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(raw, "SELECT rootpage, (SELECT page_size FROM pragma_page_size) FROM sqlite_master "
                                      "WHERE name = 'meta'",
                                 -1, &s, nullptr),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
    root_page = sqlite3_column_int(s, 0);
    page_size = sqlite3_column_int(s, 1);
    sqlite3_finalize(s);
    sqlite3_close(raw);
  }
  ASSERT_GT(root_page, 1);
  std::string bytes = read_bytes(path);
  std::mt19937 rng(6);
  for (int i = 0; i < page_size; ++i) bytes[static_cast<std::size_t>(root_page - 1) * page_size + i] = static_cast<char>(rng());
  write_bytes(path, bytes);

  auto refused = BenchmarkDatabase::open(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("corrupt"), std::string::npos) << refused.message();
  EXPECT_EQ(refused.message().find("missing"), std::string::npos) << refused.message();
  EXPECT_EQ(read_bytes(path), bytes);
}

TEST(DatabaseHardening, VerifyNamesAMissingTable) {
  TempDir dir;
  for (const std::string table : {"measurements", "coverage"}) {
    const std::string path = (dir.path() / (table + ".db")).string();
    {
      auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete));
      ASSERT_TRUE(db.ok()) << db.message();
      ASSERT_TRUE((*db)->store(test_gpu(), layer_key(1, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 3)).ok());
    }
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw, ("DROP TABLE " + table).c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);
    auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kAuto, true));
    ASSERT_TRUE(db.ok()) << db.message();
    const Status verified = (*db)->verify();
    ASSERT_FALSE(verified.ok()) << "a database without its " << table << " table verified ok";
    EXPECT_NE(verified.message().find(table), std::string::npos) << verified.message();
  }
}

// A file layer over SQLite's own that spoils exactly one read of a database file, the one
// numbered `fail_at` since `reads` was set to zero: it fails (SQLITE_IOERR_READ), or, with
// `g_garbage`, returns bytes that are not the file's (what a damaged disk or file gives).
struct FaultyFile {
  sqlite3_file base;
  sqlite3_file* real;
  bool main_db;
};
std::atomic<long> g_reads{0};
std::atomic<long> g_fail_at{0};
std::atomic<bool> g_garbage{false};
sqlite3_vfs* g_real_vfs = nullptr;
sqlite3_vfs g_faulty_vfs;
sqlite3_io_methods g_faulty_methods;

sqlite3_file* real_of(sqlite3_file* f) { return reinterpret_cast<FaultyFile*>(f)->real; }

int faulty_read(sqlite3_file* f, void* buffer, int amount, sqlite3_int64 offset) {
  const bool spoil = reinterpret_cast<FaultyFile*>(f)->main_db && ++g_reads == g_fail_at.load();
  if (spoil && !g_garbage) return SQLITE_IOERR_READ;
  const int rc = real_of(f)->pMethods->xRead(real_of(f), buffer, amount, offset);
  if (spoil && rc == SQLITE_OK) std::memset(buffer, 0x5a, static_cast<std::size_t>(amount));
  return rc;
}

int faulty_open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* f, int flags, int* out_flags) {
  auto* file = reinterpret_cast<FaultyFile*>(f);
  file->real = reinterpret_cast<sqlite3_file*>(file + 1);
  file->main_db = (flags & SQLITE_OPEN_MAIN_DB) != 0;
  const int rc = g_real_vfs->xOpen(g_real_vfs, name, file->real, flags, out_flags);
  file->base.pMethods = file->real->pMethods ? &g_faulty_methods : nullptr;
  return rc;
}

void install_faulty_vfs() {
  g_real_vfs = sqlite3_vfs_find(nullptr);
  g_faulty_vfs = *g_real_vfs;
  g_faulty_vfs.zName = "ucudnn-test-faulty";
  g_faulty_vfs.szOsFile = static_cast<int>(sizeof(FaultyFile)) + g_real_vfs->szOsFile;
  g_faulty_vfs.xOpen = faulty_open;
  auto& m = g_faulty_methods;
  m.iVersion = 3;
  m.xClose = [](sqlite3_file* f) { return real_of(f)->pMethods->xClose(real_of(f)); };
  m.xRead = faulty_read;
  m.xWrite = [](sqlite3_file* f, const void* b, int n, sqlite3_int64 o) {
    return real_of(f)->pMethods->xWrite(real_of(f), b, n, o);
  };
  m.xTruncate = [](sqlite3_file* f, sqlite3_int64 s) { return real_of(f)->pMethods->xTruncate(real_of(f), s); };
  m.xSync = [](sqlite3_file* f, int flags) { return real_of(f)->pMethods->xSync(real_of(f), flags); };
  m.xFileSize = [](sqlite3_file* f, sqlite3_int64* s) { return real_of(f)->pMethods->xFileSize(real_of(f), s); };
  m.xLock = [](sqlite3_file* f, int l) { return real_of(f)->pMethods->xLock(real_of(f), l); };
  m.xUnlock = [](sqlite3_file* f, int l) { return real_of(f)->pMethods->xUnlock(real_of(f), l); };
  m.xCheckReservedLock = [](sqlite3_file* f, int* r) {
    return real_of(f)->pMethods->xCheckReservedLock(real_of(f), r);
  };
  m.xFileControl = [](sqlite3_file* f, int op, void* arg) {
    return real_of(f)->pMethods->xFileControl(real_of(f), op, arg);
  };
  m.xSectorSize = [](sqlite3_file* f) { return real_of(f)->pMethods->xSectorSize(real_of(f)); };
  m.xDeviceCharacteristics = [](sqlite3_file* f) {
    return real_of(f)->pMethods->xDeviceCharacteristics(real_of(f));
  };
  m.xShmMap = [](sqlite3_file* f, int i, int size, int extend, void volatile** p) {
    return real_of(f)->pMethods->xShmMap(real_of(f), i, size, extend, p);
  };
  m.xShmLock = [](sqlite3_file* f, int offset, int n, int flags) {
    return real_of(f)->pMethods->xShmLock(real_of(f), offset, n, flags);
  };
  m.xShmBarrier = [](sqlite3_file* f) { real_of(f)->pMethods->xShmBarrier(real_of(f)); };
  m.xShmUnmap = [](sqlite3_file* f, int del) { return real_of(f)->pMethods->xShmUnmap(real_of(f), del); };
  // No memory-mapped pages: every page comes through xRead.
  m.xFetch = [](sqlite3_file*, sqlite3_int64, int, void** p) {
    *p = nullptr;
    return SQLITE_OK;
  };
  m.xUnfetch = [](sqlite3_file*, sqlite3_int64, void*) { return SQLITE_OK; };
  ASSERT_EQ(sqlite3_vfs_register(&g_faulty_vfs, 1), SQLITE_OK);
}

// One answer of stats() with read `read` made to go wrong: a failure is counted, and an answer
// must be the whole file's, never one from part of it.
void expect_whole_or_failed(const Expected<DatabaseStats>& stats, const DatabaseStats& whole, long read,
                            int* failures) {
  if (!stats.ok()) {
    ++*failures;
    return;
  }
  EXPECT_EQ(stats->rows, whole.rows) << "read " << read << " went wrong";
  EXPECT_EQ(stats->gpus, whole.gpus) << "read " << read << " went wrong, and a shortened list came back";
  EXPECT_EQ(stats->cudnn_versions, whole.cudnn_versions) << "read " << read << " went wrong";
}

std::set<long> sample_reads(long n) {
  std::set<long> ks;
  for (long k = 1; k <= std::min(n, 6L); ++k) ks.insert(k);
  for (long i = 0; i <= 40; ++i) ks.insert(1 + (n - 1) * i / 40);
  return ks;
}

// A database whose index (what every answer of stats() scans) is larger than the page cache,
// so that every answer reads the file; the last GPU and cuDNN version in every order come last.
// Returns its stats.
DatabaseStats fill_for_faults(const std::string& path) {
  auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete));
  EXPECT_TRUE(db.ok()) << db.message();
  const std::string long_layer = "x:t0:0x256x13x13:s43264x169x13x1 w:t0:f0:384x256x3x3 conv:m1:c0:g1:math0:r0:"
                                 "p1x1:u1x1:d1x1 y:t0:0x384x13x13:s64896x169x13x1 #";
  EXPECT_TRUE((*db)->store_rows(stored_rows(test_gpu(), 30000, 0, long_layer)).ok());
  DeviceIdentity last = test_gpu();
  last.gpu_name = "Zz last GPU";
  last.cudnn_version = 99999;
  EXPECT_TRUE((*db)->store_rows(stored_rows(last, 16, 90000, long_layer)).ok());
  auto whole = (*db)->stats();
  EXPECT_TRUE(whole.ok()) << whole.message();
  EXPECT_EQ(whole->gpus.size(), 2u);
  EXPECT_EQ(whole->cudnn_versions.size(), 2u);
  return whole.ok() ? *whole : DatabaseStats{};
}

// A page that reads back as garbage in the middle of an answer: stats() fails, it never answers
// with a list cut short where the damage stopped its reading. (Regression guard: before the fix
// the error surfaced anyway at the end of the transaction; every step is now checked.)
TEST(DatabaseHardening, StatsNeverAnswerFromPartOfADamagedFile) {
  TempDir dir;
  const std::string path = (dir.path() / "faulty.db").string();
  install_faulty_vfs();
  g_garbage = true;
  const DatabaseStats whole = fill_for_faults(path);
  auto looking = [&] { return BenchmarkDatabase::open(path, database_options(JournalMode::kDelete, true)); };
  long stats_reads = 0;
  {
    auto db = looking();
    ASSERT_TRUE(db.ok()) << db.message();
    g_reads = 0;
    ASSERT_TRUE((*db)->stats().ok());
    stats_reads = g_reads;
  }
  ASSERT_GT(stats_reads, 100) << "the answers must read the file";
  int failures = 0;
  for (const long k : sample_reads(stats_reads)) {
    auto db = looking();  // a fresh page cache each time
    ASSERT_TRUE(db.ok()) << db.message();
    g_reads = 0;
    g_fail_at = k;
    const auto stats = (*db)->stats();
    g_fail_at = 0;
    expect_whole_or_failed(stats, whole, k, &failures);
  }
  EXPECT_GT(failures, 0) << "the damage must show";
  g_garbage = false;
  sqlite3_vfs_unregister(&g_faulty_vfs);
}

// Reads that fail mid-answer: stats() and verify() fail, never answer from part of the file.
// (Regression guard, as above.)
TEST(DatabaseHardening, StatsAndVerifyNeverHideAFailedRead) {
  TempDir dir;
  const std::string path = (dir.path() / "faulty.db").string();
  install_faulty_vfs();
  g_garbage = false;
  const DatabaseStats whole = fill_for_faults(path);
  {
    auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete));
    ASSERT_TRUE(db.ok()) << db.message();
    g_reads = 0;
    ASSERT_TRUE((*db)->stats().ok());
    const long stats_reads = g_reads;
    // Counted on a verify that follows a verify, as each one of the loop does: the page cache then
    // holds what it will hold then, so the last read counted is one each of them makes.
    ASSERT_TRUE((*db)->verify().ok());
    g_reads = 0;
    ASSERT_TRUE((*db)->verify().ok());
    const long verify_reads = g_reads;
    ASSERT_GT(stats_reads, 100) << "the answers must read the file";
    int failures = 0;
    for (const long k : sample_reads(stats_reads)) {
      g_reads = 0;
      g_fail_at = k;
      const auto stats = (*db)->stats();
      g_fail_at = 0;
      expect_whole_or_failed(stats, whole, k, &failures);
    }
    EXPECT_GT(failures, 0) << "the injected failures must show";
    for (const long k : sample_reads(verify_reads)) {
      g_reads = 0;
      g_fail_at = k;
      const Status verified = (*db)->verify();
      g_fail_at = 0;
      EXPECT_FALSE(verified.ok()) << "read " << k << " of " << verify_reads << " failed, and verify said ok";
    }
  }
  sqlite3_vfs_unregister(&g_faulty_vfs);
}

}  // namespace
}  // namespace ucudnn::testing
