// What a database path may name, and what happens around the file: symbolic links, files that are not regular, the mode a new file gets, why a file is
// read-only, waits for a lock another process holds, and the side files a reader leaves. Each
// test failed before its fix.

#include <gtest/gtest.h>
#include <grp.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "cli_test_support.h"
#include "store/database.h"
#include "database_test_support.h"
#include "test_helpers.h"

namespace ucudnn::testing {
using store::BenchmarkDatabase;
using store::StoredRow;
namespace {

namespace fs = std::filesystem;

void store_one_kernel(BenchmarkDatabase& db, int layer) {
  const Status stored = db.store(test_gpu(), layer_key(layer, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 3));
  ASSERT_TRUE(stored.ok()) << stored.message();
}

long long rows_in(const std::string& path) {
  auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kAuto, true));
  EXPECT_TRUE(db.ok()) << db.message();
  if (!db.ok()) return -1;
  auto stats = (*db)->stats();
  EXPECT_TRUE(stats.ok()) << stats.message();
  return stats.ok() ? stats->rows : -1;
}

unsigned mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Runs `body` in a child process as user `uid`, group `gid` (the tests run as root, who may write
// anything); returns its exit status, or -1 where it was signalled (a hang is cut by alarm()).
template <typename Body>
int as_user(uid_t uid, gid_t gid, Body body) {
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(30);
    const bool same_user = uid == ::geteuid() && gid == ::getegid();
    if (!same_user && (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(uid) != 0)) _exit(100);
    _exit(body());
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -2;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// ---- symbolic links ----------------------------------------------------------------

// A link to a database works every time, writes go to the real file, and SQLite's journal lives
// beside the real file (where every process, linked or not, finds it), not beside the link.
TEST(DatabasePaths, ALinkToADatabaseWorksForEveryUseAndKeepsTheJournalBesideTheFile) {
  TempDir dir;
  fs::create_directory(dir.path() / "real");
  const std::string real = (dir.path() / "real" / "bench.db").string();
  const std::string link = (dir.path() / "link.db").string();
  {
    auto db = BenchmarkDatabase::open(real, database_options(JournalMode::kDelete));
    ASSERT_TRUE(db.ok()) << db.message();
    ASSERT_NO_FATAL_FAILURE(store_one_kernel(**db, 0));
  }
  fs::create_symlink(real, link);
  for (int use = 1; use <= 3; ++use) {
    SCOPED_TRACE("use " + std::to_string(use));
    auto db = BenchmarkDatabase::open(link, database_options(JournalMode::kWal));
    ASSERT_TRUE(db.ok()) << db.message();
    EXPECT_FALSE((*db)->read_only()) << (*db)->read_only_reason();
    ASSERT_NO_FATAL_FAILURE(store_one_kernel(**db, use));
    EXPECT_EQ(names_in(dir.path()), (std::set<std::string>{"link.db", "real"})) << "nothing beside the link";
    EXPECT_TRUE(fs::exists(real + "-wal")) << "the writer's -wal beside the real file";
  }
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(rows_in(real), 4 * 3);
  EXPECT_EQ(rows_in(link), 4 * 3);
  const auto stats = testing::run({"db", "stats", "--database", link});
  EXPECT_EQ(stats.status, 0) << stats.err;
}

// A link that points nowhere is never followed to create a file: in a shared sticky folder,
// whoever planted it would choose where another user's database goes.
TEST(DatabasePaths, ALinkToNothingIsRefusedAndNothingIsCreatedWhereItPoints) {
  TempDir dir;
  const std::string target = (dir.path() / "planted-target.db").string();
  const std::string link = (dir.path() / "bench.db").string();
  fs::create_symlink(target, link);
  auto db = BenchmarkDatabase::open(link, database_options(JournalMode::kAuto));
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.message().find("symbolic link to '" + target + "', which does not exist"), std::string::npos)
      << db.message();
  EXPECT_FALSE(fs::exists(target));
  testing::expect_error({"db", "import", "--database", link, "--measurements", testing::alexnet_csv_path(), "--network",
                         "alexnet", "--gpu-name", "G", "--compute-capability", "90", "--sm-count", "1",
                         "--cudnn-version", "1", "--cuda-version", "1"},
                        1, "which does not exist");
  EXPECT_FALSE(fs::exists(target));
}

// ---- what is not a regular file -----------------------------------------------------

TEST(DatabasePaths, DevicesAndFifosAreRefusedAsDatabasesWithoutBlocking) {
  TempDir dir;
  const std::string fifo = (dir.path() / "bench.db").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {std::string("/dev/null"), std::string("/dev/zero"), fifo}) {
    SCOPED_TRACE(path);
    const int status = as_user(::geteuid(), ::getegid(), [&] {
      for (const bool read_only : {false, true}) {
        auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kAuto, read_only));
        if (db.ok() || db.message().find("not a regular file") == std::string::npos) return 1;
      }
      return 0;
    });
    EXPECT_EQ(status, 0) << "1: opened, or another error; -1: blocked";
    testing::expect_error({"db", "stats", "--database", path}, 1, "not a regular file");
  }
}

// A file of /proc says its size is 0, like a new database, and holds text.
TEST(DatabasePaths, AFileThatSaysItIsEmptyButHoldsTextIsNotADatabase) {
  testing::expect_error({"db", "stats", "--database", "/proc/self/status"}, 1, "not an SQLite database");
}

TEST(DatabasePaths, VerifyOfAFileWithoutTablesSaysSoNotSchemaVersionZero) {
  TempDir dir;
  const std::string path = dir.write("new.db", "");
  const auto verify = testing::run({"db", "verify", "--database", path});
  EXPECT_EQ(verify.status, 1);
  EXPECT_NE(verify.err.find("holds no tables yet"), std::string::npos) << verify.err;
  EXPECT_EQ(verify.err.find("version 0"), std::string::npos) << verify.err;
}

// ---- modes and why a file is read-only ---------------------------------------------

// SQLite creates files 0644 whatever the umask; a group that shares a folder needs 0664.
TEST(DatabasePaths, ANewDatabaseAndItsJournalFollowTheUmask) {
  TempDir dir;
  for (const auto& [mask, expected] : {std::pair<mode_t, unsigned>{002, 0664}, {077, 0600}, {022, 0644}}) {
    const std::string path = (dir.path() / ("umask-" + std::to_string(mask) + ".db")).string();
    const mode_t saved = ::umask(mask);
    {
      auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kWal));
      ::umask(saved);
      ASSERT_TRUE(db.ok()) << db.message();
      ASSERT_NO_FATAL_FAILURE(store_one_kernel(**db, 0));
      EXPECT_EQ(mode_of(path), expected) << "umask " << mask;
      EXPECT_EQ(mode_of(path + "-wal"), expected) << "umask " << mask;
    }
  }
}

// Two members of a group share a setgid folder: what one creates, the other may write.
TEST(DatabasePaths, ASecondMemberOfTheGroupWritesTheDatabaseTheFirstCreated) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to act as two users";
  TempDir dir;
  constexpr gid_t kGroup = 47000;
  constexpr uid_t kFirst = 47001, kSecond = 47002;
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
  const fs::path shared = dir.path() / "shared";
  fs::create_directory(shared);
  ASSERT_EQ(chown(shared.c_str(), 0, kGroup), 0);
  ASSERT_EQ(chmod(shared.c_str(), 02775), 0);
  const std::string path = (shared / "bench.db").string();
  for (const uid_t user : {kFirst, kSecond}) {
    const int status = as_user(user, kGroup, [&] {
      ::umask(002);
      auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete));
      if (!db.ok() || (*db)->read_only()) return 1;
      const Status stored = (*db)->store(test_gpu(), layer_key(static_cast<int>(user % 10), 4),
                                         CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 3));
      return stored.ok() ? 0 : 2;
    });
    EXPECT_EQ(status, 0) << "user " << user << ": 1 not writable, 2 store failed";
  }
  EXPECT_EQ(rows_in(path), 2 * 3);
}

// "is read-only" alone leaves an administrator guessing: the error names the file or folder
// that cannot be written, its mode and owner.
TEST(DatabasePaths, AReadOnlyDatabaseSaysWhichFileOrFolderCannotBeWritten) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to act as another user";
  TempDir dir;
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
  const std::string path = (dir.path() / "bench.db").string();
  {
    auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete));
    ASSERT_TRUE(db.ok()) << db.message();
    ASSERT_NO_FATAL_FAILURE(store_one_kernel(**db, 0));
  }
  struct Case {
    unsigned file_mode;
    std::string expected;
  };
  for (const Case& c : {Case{0666, "may not write the folder '" + dir.path().string() + "' (mode 0755, owner root"},
                        Case{0644, "may not write the folder"}}) {
    ASSERT_EQ(chmod(path.c_str(), c.file_mode), 0);
    const int status = as_user(47003, 47003, [&] {
      auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete));
      if (!db.ok() || !(*db)->read_only()) return 1;
      const Status stored =
          (*db)->store(test_gpu(), layer_key(1, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 3));
      if (stored.ok()) return 2;
      return stored.message().find(c.expected) != std::string::npos &&
                     stored.message().find("uid 47003") != std::string::npos
                 ? 0
                 : 3;
    });
    EXPECT_EQ(status, 0) << "file mode " << std::oct << c.file_mode << ": 1 not read-only, 2 stored, 3 message";
  }
  // A folder it may write, a file it may not: the file is named.
  ASSERT_EQ(chmod(dir.path().c_str(), 0777), 0);
  ASSERT_EQ(chmod(path.c_str(), 0644), 0);
  const int status = as_user(47003, 47003, [&] {
    auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete));
    if (!db.ok()) return 1;
    return (*db)->read_only_reason().find("may not write the file (mode 0644, owner root") != std::string::npos ? 0
                                                                                                               : 3;
  });
  EXPECT_EQ(status, 0);
}

// ---- waits ---------------------------------------------------------------------------

// A writer stopped in the middle of a rollback-journal transaction holds the lock. Opening waits
// once, the timeout in all (it waited twice before, for the look at the file and again for its
// first read), and the error says that the lock was held, not that the file was refused.
TEST(DatabasePaths, AWriterHoldingTheLockCostsOneWaitAndIsNamedAsSuch) {
  TempDir dir;
  const std::string path = (dir.path() / "bench.db").string();
  {
    auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete));
    ASSERT_TRUE(db.ok()) << db.message();
    ASSERT_NO_FATAL_FAILURE(store_one_kernel(**db, 0));
  }
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(writer, "BEGIN EXCLUSIVE; DELETE FROM coverage;", nullptr, nullptr, nullptr), SQLITE_OK);
  constexpr int kTimeoutMs = 1500;
  for (const bool read_only : {true, false}) {
    SCOPED_TRACE(read_only ? "reading" : "writing");
    const auto start = std::chrono::steady_clock::now();
    auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete, read_only, kTimeoutMs));
    const auto waited =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    ASSERT_FALSE(db.ok());
    EXPECT_NE(db.message().find("held the database's lock for the whole wait (1.5 s)"), std::string::npos)
        << db.message();
    EXPECT_EQ(db.error().code, ErrorCode::kStorage) << "a lock wait, not a bad argument";
    EXPECT_EQ(db.message().find("refused"), std::string::npos) << db.message();
    EXPECT_GE(waited, kTimeoutMs - 50);
    EXPECT_LT(waited, kTimeoutMs * 19 / 10) << "one wait, not two";
  }
  sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(writer);
  EXPECT_EQ(rows_in(path), 3) << "nothing lost";
}

// ---- side files a reader leaves ---------------------------------------------------

// A read-only reader of a WAL database whose writer (one kernel stored) closed first: the reader
// holds the writer's -wal and -shm. Null, with a failure recorded, where an open failed.
std::unique_ptr<BenchmarkDatabase> reader_left_by_its_writer(const std::string& path) {
  auto writer = BenchmarkDatabase::open(path, database_options(JournalMode::kWal));
  EXPECT_TRUE(writer.ok()) << writer.message();
  if (!writer.ok()) return nullptr;
  store_one_kernel(**writer, 0);
  auto reader = BenchmarkDatabase::open(path, database_options(JournalMode::kWal, true));
  EXPECT_TRUE(reader.ok()) << reader.message();
  return reader.ok() ? std::move(reader).value() : nullptr;
}

// A reader that used a WAL writer's -wal and -shm and closes after it, in a process that may
// write the file, hands them back as the writer would have (the -wal checkpointed, no row
// changed): only the database is left. They stayed before.
TEST(DatabasePaths, AReaderClosingAfterTheWalWriterLeavesOnlyTheFile) {
  TempDir dir;
  const std::string path = (dir.path() / "bench.db").string();
  {
    auto reader = reader_left_by_its_writer(path);
    ASSERT_TRUE(reader);
    auto stats = reader->stats();
    ASSERT_TRUE(stats.ok()) << stats.message();
    EXPECT_EQ(stats->rows, 3);
  }
  EXPECT_EQ(names_in(dir.path()), std::set<std::string>{"bench.db"});
  EXPECT_EQ(rows_in(path), 3);
}

// The hand-back opens the real file without creating it: a database removed while a reader had
// it open is not brought back as an empty file.
TEST(DatabasePaths, TheReadersHandBackNeverRecreatesARemovedDatabase) {
  TempDir dir;
  const std::string path = (dir.path() / "bench.db").string();
  auto reader = reader_left_by_its_writer(path);
  ASSERT_TRUE(reader);
  ASSERT_EQ(::unlink(path.c_str()), 0);
  reader.reset();
  EXPECT_FALSE(fs::exists(path));
}

// A row source that fails after storing rows (a bad line found late, or the store refusing a
// row) stores nothing: the rows already inserted are rolled back with the transaction.
TEST(DatabasePaths, AStreamedStoreThatFailsPartWayStoresNothing) {
  TempDir dir;
  const std::string path = (dir.path() / "bench.db").string();
  auto db = BenchmarkDatabase::open(path, database_options(JournalMode::kDelete));
  ASSERT_TRUE(db.ok()) << db.message();
  auto row_at = [](int micro_batch) {
    StoredRow row;
    row.identity = test_gpu();
    row.layer = "layer-signature";
    row.measurement.micro_batch = micro_batch;
    row.measurement.candidate.algorithm = 0;
    row.measurement.time_ms = 1.0 + micro_batch;
    row.measured_at = "2026-01-01T00:00:00Z";
    return row;
  };
  auto failing_source = [&](const std::function<Status(const StoredRow&)>& store) -> Status {
    for (int micro_batch = 1; micro_batch <= 50; ++micro_batch) UCUDNN_TRY(store(row_at(micro_batch)));
    return Error::invalid("table.csv:52: invalid time_ms 'soon'");
  };
  auto failed = (*db)->store_streamed_rows(failing_source);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.message(), "table.csv:52: invalid time_ms 'soon'");
  auto refusing_source = [&](const std::function<Status(const StoredRow&)>& store) -> Status {
    for (int micro_batch = 1; micro_batch <= 50; ++micro_batch) UCUDNN_TRY(store(row_at(micro_batch)));
    StoredRow bad = row_at(51);
    bad.measurement.candidate.algorithm = -3;  // a legacy row with a negative algorithm
    return store(bad);
  };
  auto refused = (*db)->store_streamed_rows(refusing_source);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("nothing stored"), std::string::npos) << refused.message();
  auto stats = (*db)->stats();
  ASSERT_TRUE(stats.ok()) << stats.message();
  EXPECT_EQ(stats->rows, 0);
  auto good_source = [&](const std::function<Status(const StoredRow&)>& store) -> Status {
    for (int micro_batch = 1; micro_batch <= 50; ++micro_batch) UCUDNN_TRY(store(row_at(micro_batch)));
    return Status::success();
  };
  auto stored = (*db)->store_streamed_rows(good_source);
  ASSERT_TRUE(stored.ok()) << stored.message();
  EXPECT_EQ(*stored, 50);
}

}  // namespace
}  // namespace ucudnn::testing
