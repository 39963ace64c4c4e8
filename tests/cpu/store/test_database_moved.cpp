// A database file renamed or deleted while a process has it open (docs/database.md, "Shared file
// systems"): the process writes nothing more to it, in either journal mode (SQLite alone would go
// on writing a WAL file that no other process finds, and call a rollback-journal one read-only),
// lookups go on, and a new database made at the name by another process keeps every row, the old
// connection's close included.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "database_test_support.h"
#include "test_helpers.h"

namespace ucudnn::testing {
namespace {

Status store_layer(store::BenchmarkDatabase& db, int layer) {
  return db.store(test_gpu(), layer_key(layer, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 2));
}

bool holds_layer(store::BenchmarkDatabase& db, int layer) {
  auto found = db.lookup(test_gpu(), layer_key(layer, 4), CandidateKind::kLegacy);
  return found.ok() && found->has_value();
}

TEST(DatabaseMoved, ARenamedOrDeletedFileTakesNoMoreWritesAndStillAnswersLookups) {
  for (JournalMode journal : {JournalMode::kWal, JournalMode::kDelete}) {
    SCOPED_TRACE(journal == JournalMode::kWal ? "WAL" : "rollback journal");
    TempDir dir;
    const std::string path = (dir.path() / "a.db").string(), renamed = (dir.path() / "b.db").string();
    auto db = store::BenchmarkDatabase::open(path, database_options(journal));
    ASSERT_TRUE(db.ok()) << db.message();
    ASSERT_TRUE(store_layer(**db, 0).ok());

    std::filesystem::rename(path, renamed);
    const Status after_rename = store_layer(**db, 1);
    ASSERT_FALSE(after_rename.ok());
    EXPECT_EQ(after_rename.error().code, ErrorCode::kStorage);
    EXPECT_NE(after_rename.message().find("was renamed or deleted after this process opened it"), std::string::npos)
        << after_rename.message();
    EXPECT_TRUE(holds_layer(**db, 0)) << "lookups go on";

    std::filesystem::remove(renamed);
    EXPECT_FALSE(store_layer(**db, 2).ok());
    db->reset();
    EXPECT_FALSE(std::filesystem::exists(path)) << "nothing made at the old name";
  }
}

// Process A has a rollback-journal file open; the file is deleted; process B makes a new database
// at the name and stores a row, which must survive A's refused write and A's close while B has
// it open.
TEST(DatabaseMoved, ANewDatabaseAtTheNameKeepsItsRowsWhenTheOldConnectionCloses) {
  {
    const JournalMode journal = JournalMode::kDelete;
    TempDir dir;
    const std::string path = (dir.path() / "a.db").string();
    auto old = store::BenchmarkDatabase::open(path, database_options(journal));
    ASSERT_TRUE(old.ok()) << old.message();
    ASSERT_TRUE(store_layer(**old, 0).ok());
    std::filesystem::remove(path);

    int stored[2], closed[2];
    ASSERT_EQ(pipe(stored), 0);
    ASSERT_EQ(pipe(closed), 0);
    const pid_t b = fork();
    if (b == 0) {
      auto fresh = store::BenchmarkDatabase::open(path, database_options(journal));
      if (!fresh.ok()) {
        std::fprintf(stderr, "B: %s\n", fresh.message().c_str());
        _exit(1);
      }
      const Status stored_here = store_layer(**fresh, 7);
      if (!stored_here.ok()) {
        std::fprintf(stderr, "B: %s\n", stored_here.message().c_str());
        _exit(1);
      }
      char byte = 1;
      if (write(stored[1], &byte, 1) != 1 || read(closed[0], &byte, 1) != 1) _exit(2);
      _exit(holds_layer(**fresh, 7) && !holds_layer(**fresh, 0) ? 0 : 3);
    }
    close(stored[1]);  // so that a B that fails ends the read
    close(closed[0]);
    char byte = 0;
    if (read(stored[0], &byte, 1) != 1) {
      int failed = 0;
      waitpid(b, &failed, 0);
      FAIL() << "B could not make its database and store a row (exit " << WEXITSTATUS(failed) << ")";
    }
    const Status refused = store_layer(**old, 1);
    EXPECT_FALSE(refused.ok());
    EXPECT_NE(refused.message().find("another file than the one this process opened"), std::string::npos)
        << refused.message();
    old->reset();  // A closes while B has the new file open
    ASSERT_EQ(write(closed[1], &byte, 1), 1);
    int status = 0;
    ASSERT_EQ(waitpid(b, &status, 0), b);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "B lost its row, or saw A's";
    close(stored[0]);
    close(closed[1]);

    auto reopened = store::BenchmarkDatabase::open(path, database_options(journal));
    ASSERT_TRUE(reopened.ok()) << reopened.message();
    EXPECT_TRUE(holds_layer(**reopened, 7));
    EXPECT_FALSE(holds_layer(**reopened, 1));
    EXPECT_TRUE((*reopened)->verify().ok());
  }
}

// A WAL file deleted while open leaves its -wal and -shm at the name (SQLite keeps them even when
// the connection closes): a new database there would take them for its own, so none is made
// (one clear error) until they are removed.
TEST(DatabaseMoved, NoNewDatabaseIsMadeBesideADeletedOnesSideFiles) {
  TempDir dir;
  const std::string path = (dir.path() / "a.db").string();
  auto old = store::BenchmarkDatabase::open(path, database_options(JournalMode::kWal));
  ASSERT_TRUE(old.ok()) << old.message();
  ASSERT_TRUE(store_layer(**old, 0).ok());
  std::filesystem::remove(path);
  ASSERT_TRUE(std::filesystem::exists(path + "-wal"));
  auto refused = store::BenchmarkDatabase::open(path, database_options(JournalMode::kWal));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("does not exist, but its side file '" + path + "-wal' does"), std::string::npos)
      << refused.message();
  EXPECT_FALSE(std::filesystem::exists(path)) << "nothing made";
  old->reset();
  // SQLite leaves a moved database's side files where they are when it closes: still refused,
  // until they are removed.
  EXPECT_FALSE(store::BenchmarkDatabase::open(path, database_options(JournalMode::kWal)).ok());
  std::filesystem::remove(path + "-wal");
  std::filesystem::remove(path + "-shm");
  auto made = store::BenchmarkDatabase::open(path, database_options(JournalMode::kWal));
  ASSERT_TRUE(made.ok()) << made.message();
  EXPECT_FALSE(holds_layer(**made, 0));
  EXPECT_TRUE(store_layer(**made, 1).ok());
}

}  // namespace
}  // namespace ucudnn::testing
