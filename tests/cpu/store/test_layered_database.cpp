// Layered benchmark databases (store/layered_database.h): a writable user database over read-only
// system databases. Lookups fall through the layers to the first complete for the limit, stores
// go to the user database only, and a system file that cannot be used is skipped, never created
// nor changed. Also UCUDNN_SYSTEM_DATABASES's parsing.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/env_config.h"
#include "database_test_support.h"
#include "store/database.h"
#include "store/layered_database.h"
#include "test_helpers.h"

namespace ucudnn::testing {
using store::BenchmarkDatabase;
using store::DatabaseLayers;
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

// Rows told apart by their time: `count` algorithms, each taking `time_ms` + algo ms.
std::vector<Measurement> rows_timed(int micro_batch, int count, double time_ms) {
  std::vector<Measurement> rows = testing::rows_for(micro_batch, count);
  for (Measurement& m : rows) m.time_ms += time_ms - 1.0;
  return rows;
}

// A database at `path` in rollback-journal mode (as system databases should be), holding `rows`
// of `key` complete up to `bound`; closed again.
void write_database(const std::string& path, const ConvKey& key, std::size_t bound,
                    const std::vector<Measurement>& rows) {
  BenchmarkDatabase::Options options;
  options.journal = JournalMode::kDelete;
  auto db = BenchmarkDatabase::open(path, options);
  ASSERT_TRUE(db.ok()) << db.message();
  ASSERT_TRUE((*db)->store(test_gpu(), key, CandidateKind::kLegacy, bound, rows).ok());
}

std::shared_ptr<BenchmarkDatabase> open_user(const std::string& path) {
  auto db = BenchmarkDatabase::open(path);
  EXPECT_TRUE(db.ok()) << db.message();
  return db.ok() ? std::shared_ptr<BenchmarkDatabase>(std::move(db.value())) : nullptr;
}

class LayeredDatabase : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return (dir_.path() / name).string(); }
  // The system databases at `names`, opened as UCUDNN_SYSTEM_DATABASES opens them.
  std::vector<DatabaseLayers::Database> system(const std::vector<std::string>& names,
                                               std::vector<std::string>* skipped = nullptr) const {
    std::vector<std::string> paths;
    for (const std::string& name : names) paths.push_back(path(name));
    return DatabaseLayers::open_system(paths, skipped);
  }

  TempDir dir_;
  const ConvKey key_ = layer_key(0, 16);
};

TEST_F(LayeredDatabase, AKernelTheUserLacksComesFromTheSystemDatabase) {
  write_database(path("system.db"), key_, SIZE_MAX, rows_timed(16, 3, 7.0));
  const DatabaseLayers layers(open_user(path("user.db")), system({"system.db"}));
  const auto found = layers.lookup(test_gpu(), key_, CandidateKind::kLegacy, 64 * kMiB);
  ASSERT_TRUE(found.has_value());
  ASSERT_EQ(found->rows.size(), 3u);
  for (const Measurement& m : found->rows) EXPECT_GE(m.time_ms, 7.0) << "the system database's rows";
  EXPECT_EQ(found->measured_up_to, SIZE_MAX);
  EXPECT_FALSE(layers.lookup(test_gpu(), layer_key(1, 16), CandidateKind::kLegacy, 0).has_value())
      << "a kernel no layer has";
  EXPECT_FALSE(layers.lookup(test_gpu(), key_, CandidateKind::kEngine, 0).has_value()) << "a kind no layer has";
}

TEST_F(LayeredDatabase, TheUserDatabaseAnswersFirstWhereItIsCompleteForTheLimit) {
  write_database(path("user.db"), key_, 64 * kMiB, rows_timed(16, 2, 1.0));
  write_database(path("system.db"), key_, SIZE_MAX, rows_timed(16, 3, 7.0));
  const DatabaseLayers layers(open_user(path("user.db")), system({"system.db"}));
  const auto mine = layers.lookup(test_gpu(), key_, CandidateKind::kLegacy, 64 * kMiB);
  ASSERT_TRUE(mine.has_value());
  EXPECT_EQ(mine->rows.size(), 2u) << "the user's rows, though the system database has the kernel too";
  EXPECT_EQ(mine->measured_up_to, 64 * kMiB);

  // Above the user's bound, the system database (complete for any limit) answers.
  const auto larger = layers.lookup(test_gpu(), key_, CandidateKind::kLegacy, 65 * kMiB);
  ASSERT_TRUE(larger.has_value());
  EXPECT_EQ(larger->rows.size(), 3u);
  EXPECT_EQ(larger->measured_up_to, SIZE_MAX);
}

TEST_F(LayeredDatabase, SystemDatabasesAreAskedInTheOrderListed) {
  write_database(path("first.db"), key_, 32 * kMiB, rows_timed(16, 1, 3.0));
  write_database(path("second.db"), key_, 128 * kMiB, rows_timed(16, 2, 5.0));
  const DatabaseLayers layers(nullptr, system({"first.db", "second.db"}));
  EXPECT_EQ(layers.paths(), (std::vector<std::string>{path("first.db"), path("second.db")}));
  EXPECT_EQ(layers.lookup(test_gpu(), key_, CandidateKind::kLegacy, 16 * kMiB)->rows.size(), 1u);
  EXPECT_EQ(layers.lookup(test_gpu(), key_, CandidateKind::kLegacy, 64 * kMiB)->rows.size(), 2u);
  EXPECT_FALSE(layers.lookup(test_gpu(), key_, CandidateKind::kLegacy, 256 * kMiB).has_value())
      << "no layer is complete for it";
}

TEST_F(LayeredDatabase, StoresGoToTheUserDatabaseAndNeverToASystemFile) {
  write_database(path("system.db"), key_, SIZE_MAX, rows_timed(16, 3, 7.0));
  const std::string before = read_bytes(path("system.db"));
  const ConvKey other = layer_key(1, 8);
  {
    const DatabaseLayers layers(open_user(path("user.db")), system({"system.db"}));
    EXPECT_TRUE(layers.writable());
    EXPECT_EQ(layers.user_path(), path("user.db"));
    ASSERT_TRUE(layers.store(test_gpu(), other, CandidateKind::kLegacy, SIZE_MAX, rows_timed(8, 2, 2.0)).ok());
    ASSERT_TRUE(layers.store(test_gpu(), key_, CandidateKind::kLegacy, SIZE_MAX, rows_timed(16, 1, 2.0)).ok());
  }
  EXPECT_EQ(read_bytes(path("system.db")), before) << "the system file is byte-identical";
  auto user = open_user(path("user.db"));
  EXPECT_EQ(user->lookup(test_gpu(), other, CandidateKind::kLegacy).value()->rows.size(), 2u);
  EXPECT_EQ(user->lookup(test_gpu(), key_, CandidateKind::kLegacy).value()->rows.size(), 1u);

  // Without a user database nothing is writable: a clear answer, and still nothing written.
  const DatabaseLayers system_only(nullptr, system({"system.db"}));
  EXPECT_FALSE(system_only.writable());
  EXPECT_EQ(system_only.user_path(), "");
  const Status refused = system_only.store(test_gpu(), other, CandidateKind::kLegacy, SIZE_MAX, rows_timed(8, 1, 1.0));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("read-only"), std::string::npos) << refused.message();
  EXPECT_EQ(read_bytes(path("system.db")), before);
}

TEST_F(LayeredDatabase, ASystemFileThatCannotBeUsedIsSkippedAndTheOthersUsed) {
  write_database(path("good.db"), key_, SIZE_MAX, rows_timed(16, 3, 7.0));
  const std::string junk = dir_.write("junk.db", "not a database, not at all, not even close to one");
  std::vector<std::string> skipped;
  const auto opened = system({"missing.db", "junk.db", "good.db"}, &skipped);
  ASSERT_EQ(opened.size(), 1u);
  EXPECT_EQ(opened[0]->path(), path("good.db"));
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_NE(skipped[0].find("'" + path("missing.db") + "'"), std::string::npos) << skipped[0];
  EXPECT_NE(skipped[0].find("does not exist"), std::string::npos) << skipped[0];
  EXPECT_NE(skipped[1].find("'" + junk + "'"), std::string::npos) << skipped[1];
  EXPECT_FALSE(testing::exists(path("missing.db"))) << "never created";
  EXPECT_EQ(read_bytes(junk), "not a database, not at all, not even close to one");
  EXPECT_TRUE(opened[0]->read_only());

  const DatabaseLayers layers(nullptr, opened);
  EXPECT_EQ(layers.lookup(test_gpu(), key_, CandidateKind::kLegacy, 0)->rows.size(), 3u);
}

TEST_F(LayeredDatabase, ALayerWhoseLookupFailsIsPassedOver) {
  write_database(path("broken.db"), key_, SIZE_MAX, rows_timed(16, 1, 1.0));
  write_database(path("good.db"), key_, SIZE_MAX, rows_timed(16, 3, 7.0));
  const DatabaseLayers layers(nullptr, system({"broken.db", "good.db"}));
  ASSERT_EQ(layers.system().size(), 2u);
  // Damaged after it was opened: its lookups now fail.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path("broken.db").c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "DROP TABLE coverage", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  ASSERT_FALSE(layers.system()[0]->lookup(test_gpu(), key_, CandidateKind::kLegacy).ok());
  for (int i = 0; i < 2; ++i) {  // and again: the warning was given once, the answer is the same
    const auto found = layers.lookup(test_gpu(), key_, CandidateKind::kLegacy, 0);
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(found->rows.size(), 3u) << "the next layer's rows";
  }
}

TEST_F(LayeredDatabase, ReplacingTheUserDatabaseKeepsTheSystemLayers) {
  write_database(path("system.db"), key_, SIZE_MAX, rows_timed(16, 3, 7.0));
  const DatabaseLayers layers(open_user(path("a.db")), system({"system.db"}));
  const DatabaseLayers replaced = layers.with_user(open_user(path("b.db")));
  EXPECT_EQ(replaced.paths(), (std::vector<std::string>{path("b.db"), path("system.db")}));
  EXPECT_EQ(layers.user_path(), path("a.db")) << "the original is unchanged";
  const DatabaseLayers none = replaced.with_user(nullptr);
  EXPECT_FALSE(none.empty());
  EXPECT_EQ(none.lookup(test_gpu(), key_, CandidateKind::kLegacy, 0)->rows.size(), 3u);
  EXPECT_TRUE(none.with_system({}).empty());
}

TEST(SystemDatabasesSetting, IsAColonSeparatedListWhoseEmptyEntriesAreIgnored) {
  EXPECT_EQ(split_path_list(""), std::vector<std::string>());
  EXPECT_EQ(split_path_list(":::"), std::vector<std::string>());
  EXPECT_EQ(split_path_list("/a.db"), std::vector<std::string>{"/a.db"});
  EXPECT_EQ(split_path_list("/a.db::b c.db:"), (std::vector<std::string>{"/a.db", "b c.db"}));
  EXPECT_EQ(split_path_list(":/shared/x.db:/opt/y.db"), (std::vector<std::string>{"/shared/x.db", "/opt/y.db"}));

  SettingValues values;
  EXPECT_TRUE(parse_settings(values)->system_databases.empty()) << "unset: none";
  values["UCUDNN_SYSTEM_DATABASES"] = "/shared/h100.db::/opt/ucudnn/a100.db";
  const auto config = parse_settings(values);
  ASSERT_TRUE(config.ok()) << config.message();
  EXPECT_EQ(config->system_databases, (std::vector<std::string>{"/shared/h100.db", "/opt/ucudnn/a100.db"}));
}

}  // namespace
}  // namespace ucudnn::testing
