// The benchmark database against damage: results of SQLite that must be checked, a
// garbage or huge schema version, a damaged meta page, a missing table, and reads that fail or
// return garbage in the middle of an answer (through a faulty file layer under SQLite). Each test
// failed before its fix, except the ones that say they guard a property that already held.
// Killed writers, odd names and journal modes: test_database_journal_and_names.cpp; side files:
// test_database_side_files.cpp.

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
#include "sqlite_rows.h"
#include "test_helpers.h"

namespace ucudnn::testing {
using store::BenchmarkDatabase;
using store::DatabaseStats;
using store::SqliteConnection;
using store::Statement;
namespace {

using ucudnn::testing::TempDir;
namespace fs = std::filesystem;

// ---- results that must be checked ---------------------------------------------------------------

TEST(DatabaseDamage, AFailedBindFailsTheStatement) {
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

TEST(DatabaseDamage, AHugeOrGarbageSchemaVersionIsRefusedNamingIt) {
  TempDir dir;
  for (const std::string version : {"99999999999", "2147483648", "1e3", "-1"}) {
    SCOPED_TRACE(version);
    const std::string path = (dir.path() / ("v" + std::to_string(version.size()) + version.substr(0, 1) + ".db")).string();
    ASSERT_TRUE(BenchmarkDatabase::open(path, database_options(JournalMode::kDelete)).ok());
    set_schema_version(path, version);
    const std::string before = read_bytes(path);
    Expected<std::unique_ptr<BenchmarkDatabase>> refused = Error::invalid("not run");
    EXPECT_NO_THROW(refused = BenchmarkDatabase::open(path));
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.message().find("'" + version + "'"), std::string::npos) << refused.message();
    EXPECT_EQ(refused.message().find("stoi"), std::string::npos) << refused.message();
    EXPECT_EQ(read_bytes(path), before);
  }
}

TEST(DatabaseDamage, ADamagedMetaPageIsReportedAsCorruption) {
  TempDir dir;
  const std::string path = (dir.path() / "meta.db").string();
  ASSERT_TRUE(write_one_kernel(path, JournalMode::kDelete));
  const auto meta = sqlite_rows(
      path, "SELECT rootpage, (SELECT page_size FROM pragma_page_size) FROM sqlite_master WHERE name = 'meta'");
  ASSERT_EQ(meta.size(), 1u);
  const int root_page = std::stoi(meta[0][0]), page_size = std::stoi(meta[0][1]);
  ASSERT_GT(root_page, 1);
  std::string bytes = read_bytes(path);
  std::mt19937 rng(6);
  for (int i = 0; i < page_size; ++i) bytes[static_cast<std::size_t>(root_page - 1) * page_size + i] = static_cast<char>(rng());
  write_bytes(path, bytes);

  auto refused = BenchmarkDatabase::open(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("corrupt"), std::string::npos) << refused.message();
  EXPECT_EQ(refused.message().find("missing"), std::string::npos) << refused.message();
  EXPECT_EQ(refused.error().code, ErrorCode::kStorage) << "damage is the file's state, not a bad argument";
  EXPECT_EQ(read_bytes(path), bytes);
}

TEST(DatabaseDamage, VerifyNamesAMissingTable) {
  TempDir dir;
  for (const std::string table : {"measurements", "coverage"}) {
    const std::string path = (dir.path() / (table + ".db")).string();
    ASSERT_TRUE(write_one_kernel(path, JournalMode::kDelete));
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw, ("DROP TABLE " + table).c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(raw);
    // Every other open refuses it (test_database_untrusted_rows.cpp); verify's names what is wrong.
    auto options = database_options(JournalMode::kAuto, true);
    options.check_schema = false;
    auto db = BenchmarkDatabase::open(path, options);
    ASSERT_TRUE(db.ok()) << db.message();
    const auto verified = (*db)->verify();
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

// The faulty layer as SQLite's default for a test's span, taken back however the test ends (an
// ASSERT that returns early included), so that later tests get SQLite's own.
struct FaultyVfsScope {
  FaultyVfsScope() { install_faulty_vfs(); }
  ~FaultyVfsScope() {
    g_garbage = false;
    g_fail_at = 0;
    sqlite3_vfs_unregister(&g_faulty_vfs);
  }
  FaultyVfsScope(const FaultyVfsScope&) = delete;
  FaultyVfsScope& operator=(const FaultyVfsScope&) = delete;
};

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
  const long points = trials(40);  // evenly spaced over the reads
  for (long i = 0; i <= points; ++i) ks.insert(1 + (n - 1) * i / points);
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
// with a list cut short where the damage stopped its reading. (A guard: the error surfaced
// before too, at the end of the transaction; every step is now checked.)
TEST(DatabaseDamage, StatsNeverAnswerFromPartOfADamagedFile) {
  TempDir dir;
  const std::string path = (dir.path() / "faulty.db").string();
  const FaultyVfsScope faulty;
  ASSERT_FALSE(HasFatalFailure());
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
}

// Reads that fail mid-answer: stats() and verify() fail, never answer from part of the file.
// (A guard, as above.)
TEST(DatabaseDamage, StatsAndVerifyNeverHideAFailedRead) {
  TempDir dir;
  const std::string path = (dir.path() / "faulty.db").string();
  const FaultyVfsScope faulty;
  ASSERT_FALSE(HasFatalFailure());
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
      const auto verified = (*db)->verify();
      g_fail_at = 0;
      EXPECT_FALSE(verified.ok()) << "read " << k << " of " << verify_reads << " failed, and verify said ok";
    }
  }
}

// A file that is not a database at all is the caller's wrong argument; a damaged database (above)
// and a held lock are the file's state: the codes tell them apart (the API maps them to different
// cudnnStatus_t values, and planning falls back to plain cuDNN only for the latter).
TEST(DatabaseDamage, ATextFileIsABadArgumentNotAStorageFailure) {
  TempDir dir;
  const std::string path = dir.write("notes.db", "these are my notes, not a database\n");
  auto refused = BenchmarkDatabase::open(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("not an SQLite database"), std::string::npos) << refused.message();
  EXPECT_EQ(refused.error().code, ErrorCode::kBadParam);
  EXPECT_EQ(read_bytes(path), "these are my notes, not a database\n");
}

}  // namespace
}  // namespace ucudnn::testing
