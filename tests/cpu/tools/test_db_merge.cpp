// `ucudnn db merge --from USER.db --into SYSTEM.db`: every row and every coverage bound of the
// source copied into the target, rows never replaced, bounds only raised and kept per kernel and
// kind, the source never changed, a missing target made only with --create, one file refused.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "database_test_support.h"
#include "sqlite_rows.h"
#include "store/database.h"
#include "test_helpers.h"
#include "tools/cli.h"
#include "version_1_database.h"

namespace ucudnn::testing {
using store::BenchmarkDatabase;
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::int64_t kAnyLimit = std::numeric_limits<std::int64_t>::max();

DeviceIdentity other_gpu() { return DeviceIdentity{"Other GPU 40GB", 80, 108, 91400, 13000}; }

Measurement legacy(int micro_batch, int algo, double time_ms) {
  Measurement m;
  m.micro_batch = micro_batch;
  m.candidate.algorithm = algo;
  m.time_ms = time_ms;
  m.workspace_bytes = static_cast<std::size_t>(algo) * kMiB;
  return m;
}

Measurement engine(int micro_batch, const std::string& id, double time_ms) {
  Measurement m = legacy(micro_batch, -1, time_ms);
  m.workspace_bytes = 2 * kMiB;  // legacy() gives algorithm -1 a negative size
  m.candidate = Candidate::engine(id, 0);
  m.deterministic = false;
  return m;
}

// Rows of a table as text, `|` between columns, read with SQLite itself (not through the store).
// Immutable: nothing writes meanwhile, and a WAL file's reader then creates no -wal or -shm.
std::vector<std::string> query(const std::string& path, const std::string& sql) {
  std::vector<std::string> lines;
  for (const auto& row : testing::sqlite_rows(path, sql, "", testing::SqliteOpen::kImmutable)) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) line += (i ? "|" : "") + row[i];
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> coverage_of(const std::string& path) {
  return query(path,
               "SELECT gpu_name, op, layer, micro_batch, candidates, measured_up_to FROM coverage "
               "ORDER BY gpu_name, layer, micro_batch, candidates");
}

std::vector<std::string> rows_of(const std::string& path) {
  return query(path,
               "SELECT gpu_name, op, layer, micro_batch, algo, engine, time_ms, host_ms, measured_at FROM measurements "
               "ORDER BY gpu_name, layer, micro_batch, algo, engine");
}

// A row's key: device, op, layer, micro-batch, algorithm and engine (rows_of's first six fields).
std::string row_key(const std::string& row) {
  std::size_t end = 0;
  for (int field = 0; field < 6 && end != std::string::npos; ++field) end = row.find('|', end + (field ? 1 : 0));
  return row.substr(0, end);
}

std::string coverage_line(const DeviceIdentity& gpu, const ConvKey& key, CandidateKind kind, std::int64_t bound) {
  return gpu.gpu_name + "|fwd|" + key.layer_signature() + "|" + std::to_string(key.batch()) + "|" +
         std::to_string(static_cast<int>(kind)) + "|" + std::to_string(bound);
}

class DbMerge : public ::testing::Test {
 protected:
  // The source, a user's database (WAL, the local default): kernel A's legacy rows complete up to
  // 16 MiB and its engine rows for any limit, kernel B's up to 64 MiB, kernel C's (another GPU)
  // for any limit. 8 rows.
  void SetUp() override {
    auto source = BenchmarkDatabase::open(source_);
    ASSERT_TRUE(source.ok()) << source.message();
    BenchmarkDatabase& db = **source;
    ASSERT_TRUE(db.store(test_gpu(), a_, CandidateKind::kLegacy, 16 * kMiB,
                         {legacy(16, 0, 1.0), legacy(16, 1, 2.0), legacy(16, 2, 3.0)})
                    .ok());
    ASSERT_TRUE(db.store(test_gpu(), a_, CandidateKind::kEngine, SIZE_MAX, {engine(16, "eng3:k1=0", 0.5)}).ok());
    ASSERT_TRUE(
        db.store(test_gpu(), b_, CandidateKind::kLegacy, 64 * kMiB, {legacy(8, 0, 4.0), legacy(8, 1, 5.0)}).ok());
    ASSERT_TRUE(
        db.store(other_gpu(), c_, CandidateKind::kLegacy, SIZE_MAX, {legacy(4, 0, 6.0), legacy(4, 3, 7.0)}).ok());
  }

  // The target, a system database (rollback journal) that already has one row of A (another
  // time) with a higher bound, and one row of B with a lower bound.
  void write_target() {
    BenchmarkDatabase::Options options;
    options.journal = JournalMode::kDelete;
    auto target = BenchmarkDatabase::open(target_, options);
    ASSERT_TRUE(target.ok()) << target.message();
    ASSERT_TRUE((*target)->store(test_gpu(), a_, CandidateKind::kLegacy, 128 * kMiB, {legacy(16, 0, 99.0)}).ok());
    ASSERT_TRUE((*target)->store(test_gpu(), b_, CandidateKind::kLegacy, 8 * kMiB, {legacy(8, 1, 42.0)}).ok());
  }

  std::vector<std::string> merge(const std::string& into, const std::vector<std::string>& more = {}) const {
    std::vector<std::string> args = {"db", "merge", "--from", source_, "--into", into};
    args.insert(args.end(), more.begin(), more.end());
    return args;
  }

  std::string summary(const std::string& into, int added, int present, int raised) const {
    return "merged '" + source_ + "' into '" + into + "': " + std::to_string(added) + " rows added, " +
           std::to_string(present) + " already there, " + std::to_string(raised) + " coverage bounds raised\n";
  }

  TempDir dir_;
  const std::string source_ = (dir_.path() / "user.db").string();
  const std::string target_ = (dir_.path() / "system.db").string();
  const ConvKey a_ = layer_key(0, 16);
  const ConvKey b_ = layer_key(1, 8);
  const ConvKey c_ = layer_key(2, 4);
};

TEST_F(DbMerge, CopiesEveryRowAndKeepsEachKernelsCoverageNeverLoweringOrReplacing) {
  write_target();
  const std::string source_bytes = read_bytes(source_);
  const auto source_rows = rows_of(source_);
  ASSERT_EQ(source_rows.size(), 8u);
  // What the target should hold: its own rows as they are, and every source row it lacked.
  std::vector<std::string> expected_rows = rows_of(target_);
  ASSERT_EQ(expected_rows.size(), 2u);
  for (const std::string& row : source_rows) {
    const bool there = std::any_of(expected_rows.begin(), expected_rows.end(),
                                   [&](const std::string& mine) { return row_key(mine) == row_key(row); });
    if (!there) expected_rows.push_back(row);
  }
  std::sort(expected_rows.begin(), expected_rows.end());

  const CliResult merged = run(merge(target_));
  ASSERT_EQ(merged.status, 0) << merged.err;
  EXPECT_EQ(merged.err, "");
  // A's algo 0 and B's algo 1 were there; A's engine bound and C's are new, B's is raised, A's
  // legacy bound (128 MiB) stays above the source's 16 MiB.
  EXPECT_EQ(merged.out, summary(target_, 6, 2, 3));
  EXPECT_EQ(coverage_of(target_), (std::vector<std::string>{
                                      coverage_line(other_gpu(), c_, CandidateKind::kLegacy, kAnyLimit),
                                      coverage_line(test_gpu(), a_, CandidateKind::kLegacy, 128 * kMiB),
                                      coverage_line(test_gpu(), a_, CandidateKind::kEngine, kAnyLimit),
                                      coverage_line(test_gpu(), b_, CandidateKind::kLegacy, 64 * kMiB),
                                  }));
  std::vector<std::string> target_rows = rows_of(target_);
  std::sort(target_rows.begin(), target_rows.end());
  EXPECT_EQ(target_rows, expected_rows) << "rows it had are never replaced (their times stay 99 and 42)";

  // Merged again: nothing new, nothing raised, nothing changed.
  const auto coverage_after = coverage_of(target_);
  const CliResult again = run(merge(target_));
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(again.out, summary(target_, 0, 8, 0));
  EXPECT_EQ(coverage_of(target_), coverage_after);
  std::vector<std::string> rows_again = rows_of(target_);
  std::sort(rows_again.begin(), rows_again.end());
  EXPECT_EQ(rows_again, expected_rows);

  EXPECT_EQ(read_bytes(source_), source_bytes) << "the source is never written";
  EXPECT_FALSE(testing::exists(source_ + "-wal") || testing::exists(source_ + "-shm")) << "nor anything beside it";
}

TEST_F(DbMerge, AMissingTargetIsRefusedUnlessCreateIsGiven) {
  const std::string typo = (dir_.path() / "sytem.db").string();
  expect_error(merge(typo), tools::kExitDataError, "--create");
  EXPECT_FALSE(testing::exists(typo)) << "a typo makes no empty database";

  const CliResult created = run(merge(typo, {"--create"}));
  ASSERT_EQ(created.status, 0) << created.err;
  EXPECT_EQ(created.out, summary(typo, 8, 0, 4));
  EXPECT_EQ(rows_of(typo), rows_of(source_));
  EXPECT_EQ(coverage_of(typo), coverage_of(source_)) << "every bound exactly as the source has it";
  // A system database is left in rollback-journal mode (header bytes 18 and 19: 1; WAL: 2), which
  // readers that may not write read in place.
  const std::string header = read_bytes(typo).substr(0, 20);
  ASSERT_EQ(header.size(), 20u);
  EXPECT_EQ(header[18], 1);
  EXPECT_EQ(header[19], 1);
}

TEST_F(DbMerge, TheSameFileAsSourceAndTargetIsRefused) {
  const std::string before = read_bytes(source_);
  expect_error(merge(source_), tools::kExitUsageError, "same file");
  const std::string link = (dir_.path() / "link.db").string();
  std::filesystem::create_symlink(source_, link);
  expect_error(merge(link), tools::kExitUsageError, "same file");
  expect_error({"db", "merge", "--from", source_, "--into", (dir_.path() / "." / "user.db").string()},
               tools::kExitUsageError, "same file");
  EXPECT_EQ(read_bytes(source_), before);
}

TEST_F(DbMerge, UsageAndSourceErrorsAreOneLine) {
  expect_error({"db", "merge", "--into", target_}, tools::kExitUsageError, "--from");
  expect_error({"db", "merge", "--from", source_}, tools::kExitUsageError, "--into");
  const std::string missing = (dir_.path() / "nobody.db").string();
  expect_error({"db", "merge", "--from", missing, "--into", target_, "--create"}, tools::kExitDataError,
               "does not exist");
  EXPECT_FALSE(testing::exists(missing));
  EXPECT_FALSE(testing::exists(target_)) << "nothing created before the source opened";
  const std::string junk = dir_.write("junk.db", "not a database, not at all, not even close to one");
  write_target();
  const std::string target_bytes = read_bytes(target_);
  expect_error({"db", "merge", "--from", junk, "--into", target_}, tools::kExitDataError, junk);
  expect_error(merge(target_, {"--journal", "fast"}), tools::kExitUsageError, "--journal");
  expect_error({"db", "merge", "--from", "", "--into", target_}, tools::kExitUsageError, "--from: the path is empty");
  expect_error({"db", "merge", "--from", junk, "--into", ""}, tools::kExitUsageError, "--into: the path is empty");
  EXPECT_EQ(read_bytes(target_), target_bytes);
}

TEST_F(DbMerge, AVersion1SourceGivesItsLegacyCoverage) {
  const std::string old = (dir_.path() / "v1.db").string();
  const ConvKey key = layer_key(3, 4);
  std::vector<testing::Version1Row> rows;
  for (int algo = 0; algo < 3; ++algo) {
    rows.push_back(testing::Version1Row{"fwd", key.layer_signature(), 4, algo, 0, 1, 1.0 + algo, 0});
  }
  ASSERT_TRUE(testing::write_version_1_database(
      old, test_gpu(), rows, {testing::Version1Coverage{"fwd", key.layer_signature(), 4, 32 << 20}}));
  const std::string before = read_bytes(old);
  const CliResult merged = run({"db", "merge", "--from", old, "--into", target_, "--create"});
  ASSERT_EQ(merged.status, 0) << merged.err;
  EXPECT_EQ(coverage_of(target_),
            std::vector<std::string>{coverage_line(test_gpu(), key, CandidateKind::kLegacy, 32 << 20)});
  EXPECT_EQ(rows_of(target_).size(), 3u);
  EXPECT_EQ(read_bytes(old), before) << "read as version 1, never upgraded";
}

}  // namespace
}  // namespace ucudnn::testing
