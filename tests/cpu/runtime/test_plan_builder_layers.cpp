// The plan builder over layered databases, driven by a recorded measurement source: a kernel whose
// rows a system database holds is measured by nobody, and what is measured goes to the user
// database, never to a system file.

#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "recorded_planning.h"
#include "store/layered_database.h"
#include "ucudnn/ucudnn.h"

namespace ucudnn::testing {
using store::DatabaseLayers;
namespace {

const ConvKey& in_system() {  // AlexNet conv3 forward: its rows are in the system database
  static const ConvKey key = alexnet_keys()[6];
  return key;
}
const ConvKey& measured() {  // conv3 backward data: measured
  static const ConvKey key = alexnet_keys()[7];
  return key;
}

// A system database as `db merge` leaves one (rollback journal), holding every plannable size of
// in_system(), complete for any limit.
void write_system_database(const std::string& path) {
  auto recorded = RecordedSource::alexnet();
  BenchmarkDatabase::Options options;
  options.journal = JournalMode::kDelete;
  auto db = BenchmarkDatabase::open(path, options);
  ASSERT_TRUE(db.ok()) << db.message();
  for (int size : plannable_sizes(in_system(), kPolicy)) {
    ASSERT_TRUE((*db)
                    ->store(RecordedSource::recorded_identity(), in_system().with_batch(size), CandidateKind::kLegacy,
                            SIZE_MAX, recorded->rows_at(in_system(), size))
                    .ok());
  }
}

// Whether `path` holds rows of every plannable size of `key`, complete for any limit.
bool holds_every_size(const std::string& path, const ConvKey& key) {
  BenchmarkDatabase::Options options;
  options.read_only = true;
  options.create = false;
  auto db = BenchmarkDatabase::open(path, options);
  if (!db) return false;
  for (int size : plannable_sizes(key, kPolicy)) {
    auto found = (*db)->lookup(RecordedSource::recorded_identity(), key.with_batch(size), CandidateKind::kLegacy);
    if (!found || !found.value() || found.value()->measured_up_to != SIZE_MAX || found.value()->rows.empty()) {
      return false;
    }
  }
  return true;
}

class PlanBuilderLayers : public ::testing::Test {
 protected:
  void SetUp() override {
    write_system_database(system_path_);
    system_bytes_ = read_bytes(system_path_);
  }
  std::vector<std::shared_ptr<BenchmarkDatabase>> system_layers(std::vector<std::string> paths = {}) const {
    if (paths.empty()) paths = {system_path_};
    return DatabaseLayers::open_system(paths);
  }
  std::shared_ptr<BenchmarkDatabase> user_database() const {
    auto db = BenchmarkDatabase::open(user_path_);
    EXPECT_TRUE(db.ok()) << db.message();
    return db.ok() ? std::shared_ptr<BenchmarkDatabase>(std::move(db.value())) : nullptr;
  }

  TempDir dir_;
  const std::string system_path_ = (dir_.path() / "system.db").string();
  const std::string user_path_ = (dir_.path() / "user.db").string();
  std::string system_bytes_;
  std::shared_ptr<RecordedSource> source_ = RecordedSource::alexnet();
};

TEST_F(PlanBuilderLayers, AKernelWhoseRowsAreInASystemDatabaseIsNotMeasured) {
  PlanBuilder builder(source_, user_database(), system_layers());
  builder.set_search_mode(SearchMode::kExhaustive);  // every size in one request
  EXPECT_EQ(builder.database_path(), user_path_) << "the user database's path, as before";
  std::shared_ptr<const ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, in_system(), 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  // Every row at any limit, as workspace division asks: still nothing to measure.
  std::vector<int> sizes;
  std::vector<Measurement> rows;
  ASSERT_TRUE(builder.measured_rows(nullptr, in_system(), kPolicy, kCandidates, &sizes, &rows).ok());
  EXPECT_EQ(builder.timings_run(), 0) << "nothing benchmarked: the system database has every row";
  EXPECT_EQ(source_->calls_for(in_system()), 0);
  EXPECT_EQ(builder.table().entry(in_system().with_batch(256), CandidateKind::kLegacy)->rows.size(),
            source_->rows_at(in_system(), 256).size());
  EXPECT_FALSE(holds_every_size(user_path_, in_system())) << "rows looked up are not copied to the user database";

  ASSERT_TRUE(builder.plan(nullptr, measured(), 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(sorted(source_->sizes_asked_for(measured())), plannable_sizes(measured(), kPolicy))
      << "each size measured once";
  EXPECT_GT(builder.timings_run(), 0);
  EXPECT_TRUE(holds_every_size(user_path_, measured())) << "measured rows go to the user database";
  EXPECT_FALSE(holds_every_size(system_path_, measured()));
  EXPECT_EQ(read_bytes(system_path_), system_bytes_) << "the system file is byte-identical";

  // Another process's plan builder over the same files measures neither kernel.
  auto fresh = RecordedSource::alexnet();
  PlanBuilder other(fresh, user_database(), system_layers());
  other.set_search_mode(SearchMode::kExhaustive);  // every size in one request
  ASSERT_TRUE(other.plan(nullptr, measured(), 32 * kMiB, kPolicy, kCandidates, &plan).ok());
  ASSERT_TRUE(other.plan(nullptr, in_system(), 32 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(fresh->timings_run(), 0);
}

TEST_F(PlanBuilderLayers, WithoutAUserDatabaseMeasuredRowsStayInMemory) {
  PlanBuilder builder(source_, nullptr, system_layers());
  builder.set_search_mode(SearchMode::kExhaustive);  // every size in one request
  EXPECT_EQ(builder.database_path(), "");
  std::shared_ptr<const ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, in_system(), 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(builder.timings_run(), 0);
  ASSERT_TRUE(builder.plan(nullptr, measured(), 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(sorted(source_->sizes_asked_for(measured())), plannable_sizes(measured(), kPolicy))
      << "each size measured once";
  EXPECT_EQ(read_bytes(system_path_), system_bytes_) << "never written to a system file";
}

TEST_F(PlanBuilderLayers, SetDatabaseReplacesTheUserDatabaseOnly) {
  PlanBuilder builder(source_, nullptr, system_layers());
  builder.set_search_mode(SearchMode::kExhaustive);  // every size in one request
  ASSERT_TRUE(builder.set_database(user_path_).ok());
  EXPECT_EQ(builder.database_path(), user_path_);
  std::shared_ptr<const ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, in_system(), 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(builder.timings_run(), 0) << "the system layer stayed";
  ASSERT_TRUE(builder.plan(nullptr, measured(), 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_TRUE(holds_every_size(user_path_, measured()));
}

TEST_F(PlanBuilderLayers, SystemDatabasesThatCannotBeOpenedAreNamedAndTheOthersUsed) {
  PlanBuilder builder(source_, nullptr);
  builder.set_search_mode(SearchMode::kExhaustive);  // every size in one request
  const std::string missing = (dir_.path() / "typo.db").string();
  const Status set = builder.set_system_databases({missing, system_path_});
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.error().code, ErrorCode::kBadParam);
  EXPECT_NE(set.message().find("'" + missing + "'"), std::string::npos) << set.message();
  EXPECT_NE(set.message().find("does not exist"), std::string::npos) << set.message();
  EXPECT_FALSE(testing::exists(missing)) << "never created";
  std::shared_ptr<const ExecutablePlan> plan;
  ASSERT_TRUE(builder.plan(nullptr, in_system(), 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(builder.timings_run(), 0) << "the database that opened is used";

  auto fresh = RecordedSource::alexnet();
  PlanBuilder without(fresh, nullptr, system_layers());
  without.set_search_mode(SearchMode::kExhaustive);  // every size in one request
  ASSERT_TRUE(without.set_system_databases({}).ok()) << "none";
  ASSERT_TRUE(without.plan(nullptr, in_system(), 64 * kMiB, kPolicy, kCandidates, &plan).ok());
  EXPECT_EQ(fresh->calls_for(in_system()), 1) << "no system database any more: measured";
}

// The process's setting: what opens is used, what does not is named in the last error message.
TEST_F(PlanBuilderLayers, TheLibraryCallSetsTheProcesssSystemDatabases) {
  const std::string missing = (dir_.path() / "typo.db").string();
  const std::string list = ":" + missing + "::" + system_path_ + ":";
  ASSERT_EQ(ucudnnSetSystemDatabases(list.c_str()), CUDNN_STATUS_BAD_PARAM);
  const std::string message = ucudnnGetLastErrorMessage();
  EXPECT_NE(message.find("ucudnnSetSystemDatabases: skipping system benchmark database '" + missing +
                         "': does not exist"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find(system_path_), std::string::npos) << "the file that opened is not named: " << message;
  EXPECT_FALSE(testing::exists(missing));
  ASSERT_EQ(ucudnnSetSystemDatabases(system_path_.c_str()), CUDNN_STATUS_SUCCESS) << ucudnnGetLastErrorMessage();
  EXPECT_EQ(ucudnnSetSystemDatabases(nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(ucudnnSetSystemDatabases(""), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(read_bytes(system_path_), system_bytes_);
}

}  // namespace
}  // namespace ucudnn::testing
