// Reading a benchmark database leaves nothing beside it: the library's read-only opens
// (Options::read_only, a file the process cannot write) and the looking commands (db export,
// db stats, db verify) leave the folder holding the database file as they found it once they
// close, in WAL and in rollback journal mode, and read every committed row. A writer that has the
// file open in WAL mode owns its -wal and -shm; a reader beside it reads through them. Refusing a
// corrupt or foreign file creates nothing beside it; a read-only WAL file leaves no -shm that
// would make later writes fail, and a -shm the process cannot write is named.

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_test_support.h"
#include "core/conv_layer.h"
#include "store/database.h"
#include "database_test_support.h"
#include "test_helpers.h"

namespace ucudnn::testing {
using store::BenchmarkDatabase;
namespace {

namespace fs = std::filesystem;

// Stores `count` rows (3 at micro-batch 4 of layer 1, the rest at micro-batch 8 of layer 2).
void store_rows(BenchmarkDatabase& db, int count) {
  ASSERT_TRUE(db.store(test_gpu(), layer_key(1, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 3)).ok());
  if (count > 3) {
    ASSERT_TRUE(db.store(test_gpu(), layer_key(2, 8), CandidateKind::kLegacy, SIZE_MAX, rows_for(8, count - 3)).ok());
  }
}

// A database of 5 rows in `journal` mode, closed cleanly: nothing beside it.
std::string make_closed_database(const TempDir& dir, JournalMode journal) {
  const std::string path = (dir.path() / "bench.db").string();
  {
    auto db = BenchmarkDatabase::open(path, database_options(journal, false));
    EXPECT_TRUE(db.ok()) << db.message();
    if (db.ok()) store_rows(**db, 5);
  }
  EXPECT_EQ(names_in(dir.path()), std::set<std::string>{"bench.db"}) << "a clean close leaves no side files";
  return path;
}

// Every read of the library's interface on a read-only database: 0 where all returned the rows.
int read_everything(BenchmarkDatabase& db) {
  if (!db.read_only()) return 1;
  auto found = db.lookup(test_gpu(), layer_key(1, 4), CandidateKind::kLegacy);
  if (!found.ok() || !*found || (*found)->rows.size() != 3 || (*found)->measured_up_to != SIZE_MAX) return 2;
  auto all = db.all_rows();
  if (!all.ok() || all->size() != 5) return 3;
  auto stats = db.stats();
  if (!stats.ok() || stats->rows != 5) return 4;
  if (!db.verify().ok()) return 5;
  return 0;
}

// Each read-only path, one after the other, on a cleanly closed database in `journal` mode.
void expect_reading_leaves_only_the_file(JournalMode journal) {
  TempDir dir;
  const std::string path = make_closed_database(dir, journal);
  const std::string bytes = read_bytes(path);
  const std::set<std::string> only_the_file{"bench.db"};

  {
    SCOPED_TRACE("the library, Options::read_only");
    auto db = BenchmarkDatabase::open(path, database_options(journal, true));
    ASSERT_TRUE(db.ok()) << db.message();
    EXPECT_EQ(read_everything(**db), 0) << "1 not read-only, 2 lookup, 3 all_rows, 4 stats, 5 verify";
    // A WAL file this process may write is read in place with locks (memory does not grow with
    // the file): its -wal and -shm exist while it is open, and are handed back when it closes.
    const std::set<std::string> while_open = journal == JournalMode::kWal
                                                 ? std::set<std::string>{"bench.db", "bench.db-wal", "bench.db-shm"}
                                                 : only_the_file;
    for (const std::string& name : names_in(dir.path())) EXPECT_TRUE(while_open.count(name)) << name << " while open";
  }
  EXPECT_EQ(names_in(dir.path()), only_the_file);

  const auto export_run = testing::run({"db", "export", "--csv", "--database", path});
  EXPECT_EQ(export_run.status, 0) << export_run.err;
  EXPECT_EQ(std::count(export_run.out.begin(), export_run.out.end(), '\n'), 1 + 5) << export_run.out;
  EXPECT_EQ(names_in(dir.path()), only_the_file) << "after db export";

  const auto stats_run = testing::run({"db", "stats", "--json", "--database", path});
  ASSERT_EQ(stats_run.status, 0) << stats_run.err;
  EXPECT_EQ(nlohmann::json::parse(stats_run.out).at("rows"), 5) << stats_run.out;
  EXPECT_EQ(names_in(dir.path()), only_the_file) << "after db stats";

  const auto verify_run = testing::run({"db", "verify", "--database", path});
  EXPECT_EQ(verify_run.status, 0) << verify_run.err;
  EXPECT_TRUE(testing::says_verified(verify_run.out, path)) << verify_run.out;
  EXPECT_EQ(names_in(dir.path()), only_the_file) << "after db verify";

  // A file this process cannot write is opened read-only without being asked: as another user
  // (root may write anything), with a folder where that user could create files.
  if (geteuid() == 0) {
    SCOPED_TRACE("the library, a file the process cannot write");
    ASSERT_EQ(chmod(dir.path().c_str(), 0777), 0);
    ASSERT_EQ(chmod(path.c_str(), 0444), 0);
    const pid_t pid = fork();
    if (pid == 0) {
      if (setgid(65534) != 0 || setuid(65534) != 0) _exit(100);
      auto db = BenchmarkDatabase::open(path);
      _exit(db.ok() ? read_everything(**db) : 10);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "10 open, 1 not read-only, 2 lookup, 3 all_rows, 4 stats, 5 verify";
    EXPECT_EQ(names_in(dir.path()), only_the_file);
  }
  EXPECT_EQ(read_bytes(path), bytes) << "reading changed the file";
}

TEST(DatabaseSideFiles, ReadingAWalDatabaseLeavesOnlyTheFile) {
  expect_reading_leaves_only_the_file(JournalMode::kWal);
}

TEST(DatabaseSideFiles, ReadingARollbackJournalDatabaseLeavesOnlyTheFile) {
  expect_reading_leaves_only_the_file(JournalMode::kDelete);
}

// A writer has the file open in WAL mode: its -wal holds committed rows that the main file does
// not have yet. A reader reads them (with locks, through the writer's -shm), and rows the writer
// commits later too; it creates nothing, and the writer, closing last, removes its files.
TEST(DatabaseSideFiles, AReaderBesideALiveWalWriterReadsItsRowsAndAddsNoFile) {
  TempDir dir;
  const std::string path = (dir.path() / "bench.db").string();
  auto writer = BenchmarkDatabase::open(path, database_options(JournalMode::kWal, false));
  ASSERT_TRUE(writer.ok()) << writer.message();
  ASSERT_NO_FATAL_FAILURE(store_rows(**writer, 3));
  const std::set<std::string> writers_files = names_in(dir.path());
  ASSERT_EQ(writers_files, (std::set<std::string>{"bench.db", "bench.db-wal", "bench.db-shm"}));
  {
    auto reader = BenchmarkDatabase::open(path, database_options(JournalMode::kWal, true));
    ASSERT_TRUE(reader.ok()) << reader.message();
    auto found = (*reader)->lookup(test_gpu(), layer_key(1, 4), CandidateKind::kLegacy);
    ASSERT_TRUE(found.ok()) << found.message();
    ASSERT_TRUE(found->has_value()) << "the rows in the writer's -wal";
    EXPECT_EQ((*found)->rows.size(), 3u);
    ASSERT_TRUE((*writer)->store(test_gpu(), layer_key(2, 8), CandidateKind::kLegacy, SIZE_MAX, rows_for(8, 2)).ok());
    auto all = (*reader)->all_rows();
    ASSERT_TRUE(all.ok()) << all.message();
    EXPECT_EQ(all->size(), 5u) << "a reader with locks sees what the writer commits later";
    EXPECT_EQ(names_in(dir.path()), writers_files);
  }
  writer->reset();
  EXPECT_EQ(names_in(dir.path()), std::set<std::string>{"bench.db"});
}

// The reader closes last: its rows are all there, no file but the writer's appears, and the next
// writable open that closes last leaves only the file. (A reader that may write the file hands
// the writer's files back itself: DatabasePaths.AReaderClosingAfterTheWalWriterLeavesOnlyTheFile.)
TEST(DatabaseSideFiles, AReaderClosingAfterTheWalWriterLosesNoRowAndAddsNoFile) {
  TempDir dir;
  const std::string path = (dir.path() / "bench.db").string();
  auto writer = BenchmarkDatabase::open(path, database_options(JournalMode::kWal, false));
  ASSERT_TRUE(writer.ok()) << writer.message();
  ASSERT_NO_FATAL_FAILURE(store_rows(**writer, 5));
  const std::set<std::string> writers_files = names_in(dir.path());
  {
    auto reader = BenchmarkDatabase::open(path, database_options(JournalMode::kWal, true));
    ASSERT_TRUE(reader.ok()) << reader.message();
    writer->reset();
    EXPECT_EQ(read_everything(**reader), 0) << "1 not read-only, 2 lookup, 3 all_rows, 4 stats, 5 verify";
  }
  for (const std::string& name : names_in(dir.path())) EXPECT_TRUE(writers_files.count(name)) << name;
  {
    auto reopened = BenchmarkDatabase::open(path, database_options(JournalMode::kWal, false));
    ASSERT_TRUE(reopened.ok()) << reopened.message();
    auto all = (*reopened)->all_rows();
    ASSERT_TRUE(all.ok()) << all.message();
    EXPECT_EQ(all->size(), 5u);
  }
  EXPECT_EQ(names_in(dir.path()), std::set<std::string>{"bench.db"});
}

// A read-only open of an idle WAL file that the process may write reads it in place with locks:
// a writer that starts afterwards works beside it, the reader sees what it commits, and once both
// have closed (in either order) only the file is left. (A file the process may not write is read
// as a snapshot in memory: expect_reading_leaves_only_the_file, as another user.)
TEST(DatabaseSideFiles, AWriterBesideAReaderOfAnIdleWalFileLeavesOnlyTheFileOnceBothClose) {
  TempDir dir;
  const std::string path = make_closed_database(dir, JournalMode::kWal);
  auto reader = BenchmarkDatabase::open(path, database_options(JournalMode::kWal, true));
  ASSERT_TRUE(reader.ok()) << reader.message();
  {
    auto writer = BenchmarkDatabase::open(path, database_options(JournalMode::kWal, false));
    ASSERT_TRUE(writer.ok()) << writer.message();
    ASSERT_TRUE((*writer)->store(test_gpu(), layer_key(3, 2), CandidateKind::kLegacy, SIZE_MAX, rows_for(2, 1)).ok());
  }
  auto stats = (*reader)->stats();
  ASSERT_TRUE(stats.ok()) << stats.message();
  EXPECT_EQ(stats->rows, 6) << "the writer's row, read through its -wal";
  reader->reset();
  EXPECT_EQ(names_in(dir.path()), std::set<std::string>{"bench.db"});
}

// ---- nothing left beside a file that was refused, no stuck permissions --------------------------

TEST(DatabaseSideFiles, RefusingCorruptOrForeignWalFilesCreatesNothingBesideThem) {
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

TEST(DatabaseSideFiles, LookingAtAReadOnlyWalFileLeavesNoSharedMemoryFileBehind) {
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

TEST(DatabaseSideFiles, ASharedMemoryFileThatCannotBeWrittenIsNamed) {
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
