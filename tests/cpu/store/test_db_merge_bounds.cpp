// The bounds of sharing databases: `db merge` streams its source a row at a time (its memory does
// not grow with the source), and a process looks rows up in at most kMaxSystemDatabases system
// databases (each stays open for the process's life).

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "core/env_config.h"
#include "database_test_support.h"
#include "store/database.h"
#include "test_helpers.h"

namespace ucudnn::testing {
using store::BenchmarkDatabase;
using store::StoredRow;
namespace {

using store::BenchmarkDatabase;
using store::StoredRow;

// Runs the real `ucudnn ARGS`, quietly, and returns its peak resident memory in KiB (-1 where it
// failed).
long peak_kib_of(const std::vector<std::string>& args) {
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv;
    const std::string cli = UCUDNN_CLI_PATH;
    argv.push_back(const_cast<char*>(cli.c_str()));
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    freopen("/dev/null", "w", stdout);
    execv(cli.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return usage.ru_maxrss;
}

TEST(MergeBounds, AMergeStreamsItsSourceInsteadOfHoldingIt) {
#ifdef UCUDNN_TEST_UNDER_ASAN
  GTEST_SKIP() << "AddressSanitizer keeps freed memory in quarantine: peaks are measured in the plain build";
#endif
  TempDir dir;
  const std::string source = (dir.path() / "user.db").string();
  {
    // 120,000 rows: about 60 MiB held in memory by a merge that reads its source whole.
    std::vector<StoredRow> rows;
    for (int layer = 0; layer < 500; ++layer) {
      const ConvKey key = testing::layer_key(layer, 1);
      for (int batch = 1; batch <= 30; ++batch) {
        for (int algo = 0; algo < algo_count(ConvOp::kForward); ++algo) {
          StoredRow row{test_gpu(), ConvOp::kForward, key.layer_signature(), {}, "2026-11-27T00:00:00Z"};
          row.measurement.micro_batch = batch;
          row.measurement.candidate.algorithm = algo;
          row.measurement.time_ms = 1.0 + algo;
          rows.push_back(row);
        }
      }
    }
    auto db = BenchmarkDatabase::open(source, database_options(JournalMode::kDelete));
    ASSERT_TRUE(db.ok()) << db.message();
    ASSERT_TRUE((*db)->store_rows(rows).ok());
  }
  const long looking = peak_kib_of({"db", "stats", "--database", source});
  const long merging =
      peak_kib_of({"db", "merge", "--from", source, "--into", (dir.path() / "sys.db").string(), "--create"});
  ASSERT_GT(looking, 0);
  ASSERT_GT(merging, 0);
  EXPECT_LT(merging - looking, 16 * 1024) << "db merge peaked at " << merging << " KiB, db stats at " << looking;
  auto merged = BenchmarkDatabase::open((dir.path() / "sys.db").string(), database_options(JournalMode::kDelete, true));
  ASSERT_TRUE(merged.ok()) << merged.message();
  const auto stats = (*merged)->stats();
  ASSERT_TRUE(stats.ok()) << stats.message();
  EXPECT_EQ(stats->rows, 120000);
}

TEST(SystemDatabases, AListLongerThanTheBoundIsRefusedNamingIt) {
  std::string list;
  for (std::size_t i = 0; i < kMaxSystemDatabases; ++i) list += "/shared/db" + std::to_string(i) + ".db:";
  const auto at_bound = parse_system_databases(list);
  ASSERT_TRUE(at_bound.ok()) << at_bound.message();
  EXPECT_EQ(at_bound->size(), kMaxSystemDatabases);
  const auto over = parse_system_databases(list + "/shared/one-more.db");
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.message().find("names 33 databases; at most 32"), std::string::npos) << over.message();

  SettingValues values;
  const std::string too_many = list + "/shared/one-more.db";
  values["UCUDNN_SYSTEM_DATABASES"] = too_many.c_str();
  const auto config = parse_settings(values);
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.message().rfind("UCUDNN_SYSTEM_DATABASES: ", 0), 0u) << config.message();
}

}  // namespace
}  // namespace ucudnn::testing
