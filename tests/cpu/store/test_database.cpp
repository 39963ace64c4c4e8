// The SQLite benchmark database through its public interface: sharing between processes and
// threads loses nothing and never reports a lock, a read-only file serves lookups, files that
// are not ours (or from a newer ucudnn) are refused byte-identical.

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <iterator>
#include <random>
#include <thread>

#include "core/benchmark_table.h"
#include "core/conv_layer.h"
#include "database_test_support.h"
#include "store/database.h"
#include "store/journal.h"
#include "test_helpers.h"

namespace ucudnn {
using store::BenchmarkDatabase;
using store::journal_mode_for;
namespace {

using ucudnn::testing::TempDir;
using ucudnn::testing::read_bytes;
using testing::test_gpu;

// A distinct layer per (writer, index): channels and spatial size encode them.
ConvKey layer_key(int writer, int index, int micro_batch, ConvOp op = ConvOp::kForward) {
  return testing::small_layer_key("w" + std::to_string(writer) + "_" + std::to_string(index), micro_batch,
                                  1 + writer, 8 + index, op);
}

std::vector<Measurement> rows_for(int micro_batch, int count, double base_time) {
  std::vector<Measurement> rows;
  for (int algo = 0; algo < count; ++algo) {
    Measurement m;
    m.micro_batch = micro_batch;
    m.candidate.algorithm = algo;
    m.candidate.math_type = algo % 2;
    m.time_ms = base_time + algo * 0.25;
    m.workspace_bytes = static_cast<std::size_t>(algo) << 20;
    m.deterministic = algo != 3;
    rows.push_back(m);
  }
  return rows;
}

TEST(BenchmarkDatabase, StoresAndLooksUpEveryRowWithItsCoverage) {
  TempDir dir;
  const std::string path = (dir.path() / "bench.db").string();
  auto db = BenchmarkDatabase::open(path);
  ASSERT_TRUE(db.ok()) << db.message();
  const ConvKey key = layer_key(0, 0, 16);
  EXPECT_FALSE(db.value()->lookup(test_gpu(), key, CandidateKind::kLegacy).value().has_value());
  ASSERT_TRUE(
      db.value()->store(test_gpu(), key, CandidateKind::kLegacy, std::size_t{64} << 20, rows_for(16, 5, 1.0)).ok());

  auto found = db.value()->lookup(test_gpu(), key, CandidateKind::kLegacy);
  ASSERT_TRUE(found.ok()) << found.message();
  ASSERT_TRUE(found.value().has_value());
  EXPECT_EQ(found.value()->measured_up_to, std::size_t{64} << 20);
  ASSERT_EQ(found.value()->rows.size(), 5u);
  for (const Measurement& m : found.value()->rows) {
    EXPECT_EQ(m.micro_batch, 16);
    EXPECT_DOUBLE_EQ(m.time_ms, 1.0 + m.candidate.algorithm * 0.25);
    EXPECT_EQ(m.workspace_bytes, static_cast<std::size_t>(m.candidate.algorithm) << 20);
    EXPECT_EQ(m.deterministic, m.candidate.algorithm != 3);
  }
  // Another GPU, op, batch or layer is another key.
  DeviceIdentity other = test_gpu();
  other.cudnn_version = 91900;
  EXPECT_FALSE(db.value()->lookup(other, key, CandidateKind::kLegacy).value().has_value());
  EXPECT_FALSE(db.value()->lookup(test_gpu(), key.with_batch(8), CandidateKind::kLegacy).value().has_value());
  EXPECT_FALSE(db.value()
                   ->lookup(test_gpu(), layer_key(0, 0, 16, ConvOp::kBackwardData), CandidateKind::kLegacy)
                   .value()
                   .has_value());

  // A row already stored is never overwritten; coverage only grows; unbounded survives.
  auto slower = rows_for(16, 5, 9.0);
  ASSERT_TRUE(db.value()->store(test_gpu(), key, CandidateKind::kLegacy, std::size_t{1} << 20, slower).ok());
  found = db.value()->lookup(test_gpu(), key, CandidateKind::kLegacy);
  EXPECT_EQ(found.value()->measured_up_to, std::size_t{64} << 20);
  EXPECT_DOUBLE_EQ(found.value()->rows.front().time_ms, 1.0);
  ASSERT_TRUE(db.value()->store(test_gpu(), key, CandidateKind::kLegacy, SIZE_MAX, {}).ok());
  EXPECT_EQ(db.value()->lookup(test_gpu(), key, CandidateKind::kLegacy).value()->measured_up_to, SIZE_MAX);
  EXPECT_TRUE(db.value()->verify().ok());
}

// Writers in separate processes, each storing its own kernels and some shared ones, one
// transaction per kernel as the plan builder does.
void run_writers(const std::string& path, JournalMode journal) {
  constexpr int kProcesses = 8, kKernels = 60, kRowsPerKernel = 4;
  std::vector<pid_t> children;
  for (int writer = 0; writer < kProcesses; ++writer) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      BenchmarkDatabase::Options options;
      options.journal = journal;
      auto db = BenchmarkDatabase::open(path, options);
      if (!db) {
        std::fprintf(stderr, "writer %d: %s\n", writer, db.message().c_str());
        _exit(2);
      }
      for (int k = 0; k < kKernels; ++k) {
        for (int owner : {writer, 100}) {  // 100: kernels every writer stores
          auto stored = db.value()->store(test_gpu(), layer_key(owner, k, 32), CandidateKind::kLegacy, SIZE_MAX,
                                          rows_for(32, kRowsPerKernel, k));
          if (!stored) {
            std::fprintf(stderr, "writer %d: %s\n", writer, stored.message().c_str());
            _exit(3);
          }
          if (owner == 100) {  // readers interleave with writers
            auto read = db.value()->lookup(test_gpu(), layer_key(100, k, 32), CandidateKind::kLegacy);
            if (!read || !read.value()) _exit(4);
          }
        }
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed (see its line above)";
  }
  auto db = BenchmarkDatabase::open(path);
  ASSERT_TRUE(db.ok()) << db.message();
  auto stats = db.value()->stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats.value().rows, (kProcesses + 1) * kKernels * kRowsPerKernel) << "rows lost or duplicated";
  for (int writer = 0; writer < kProcesses; ++writer) {
    for (int k = 0; k < kKernels; ++k) {
      auto found = db.value()->lookup(test_gpu(), layer_key(writer, k, 32), CandidateKind::kLegacy);
      ASSERT_TRUE(found.ok() && found.value().has_value()) << "writer " << writer << " kernel " << k;
      EXPECT_EQ(found.value()->rows.size(), static_cast<std::size_t>(kRowsPerKernel));
    }
  }
  EXPECT_TRUE(db.value()->verify().ok());
}

TEST(BenchmarkDatabase, EightProcessesWritingAtOnceLoseNothingWithWal) {
  TempDir dir;
  run_writers((dir.path() / "shared.db").string(), JournalMode::kWal);
}

TEST(BenchmarkDatabase, EightProcessesWritingAtOnceLoseNothingWithTheNetworkSafeJournal) {
  TempDir dir;
  const std::string path = (dir.path() / "shared.db").string();
  run_writers(path, JournalMode::kDelete);
  auto db = BenchmarkDatabase::open(path, {JournalMode::kDelete, true, false, 60000});
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(db.value()->journal_mode(), JournalMode::kDelete);
}

TEST(BenchmarkDatabase, ThreadsSharingOneConnectionLoseNothing) {
  TempDir dir;
  auto db = BenchmarkDatabase::open((dir.path() / "threads.db").string());
  ASSERT_TRUE(db.ok());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 40; ++k) {
        if (!db.value()->store(test_gpu(), layer_key(t, k, 8), CandidateKind::kLegacy, SIZE_MAX, rows_for(8, 3, 1.0)))
          ++failures;
        if (!db.value()->lookup(test_gpu(), layer_key(t, k, 8), CandidateKind::kLegacy)) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(db.value()->stats().value().rows, 8 * 40 * 3);
}

TEST(BenchmarkTable, ConcurrentThreadsThroughTheMemoryLayerLoseNothing) {
  BenchmarkTable table;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 200; ++k) {
        const ConvKey key = layer_key(t % 4, k, 4);
        // Two threads write each key: rows of one algorithm replace, others accumulate.
        table.record(key, CandidateKind::kLegacy, std::size_t{1} << (10 + t % 3), rows_for(4, 2 + t / 4, 1.0));
        (void)table.complete_rows(key, CandidateKind::kLegacy, 1024);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(table.size(), 4u * 200u);
  for (int w = 0; w < 4; ++w) {
    auto entry = table.entry(layer_key(w, 7, 4), CandidateKind::kLegacy);
    ASSERT_TRUE(entry.has_value());
    EXPECT_EQ(entry->rows.size(), 3u) << "the union of both writers' algorithms";
    EXPECT_EQ(entry->measured_up_to, std::size_t{1} << (10 + std::max(w % 3, (w + 4) % 3))) << "the larger bound";
  }
}

TEST(BenchmarkDatabase, ReadOnlyFileServesLookupsAndRefusesWrites) {
  TempDir dir;
  const std::string path = (dir.path() / "ro.db").string();
  {
    auto db = BenchmarkDatabase::open(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(
        db.value()->store(test_gpu(), layer_key(1, 1, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 3, 2.0)).ok());
  }
  ASSERT_EQ(chmod(path.c_str(), 0444), 0);
  const std::string before = read_bytes(path);
  const int status = testing::exit_status_as_unprivileged([&] {
    auto db = BenchmarkDatabase::open(path);
    if (!db) {
      std::fprintf(stderr, "open: %s\n", db.message().c_str());
      return 11;
    }
    if (!db.value()->read_only()) return 12;
    auto found = db.value()->lookup(test_gpu(), layer_key(1, 1, 4), CandidateKind::kLegacy);
    if (!found || !found.value() || found.value()->rows.size() != 3) return 13;
    if (db.value()->store(test_gpu(), layer_key(2, 2, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 1, 1.0))) {
      return 14;
    }
    return 0;
  }, dir.path());
  EXPECT_EQ(status, 0) << "10 setuid, 11 open, 12 not read-only, 13 lookup, 14 write accepted";
  EXPECT_EQ(read_bytes(path), before);
  // Asked explicitly, a writable file is opened read-only too.
  BenchmarkDatabase::Options options;
  options.read_only = true;
  auto db = BenchmarkDatabase::open(path, options);
  ASSERT_TRUE(db.ok());
  EXPECT_TRUE(db.value()->read_only());
}

TEST(BenchmarkDatabase, NonSqliteAndCorruptFilesAreRefusedUntouched) {
  TempDir dir;
  std::mt19937 rng(std::random_device{}());
  std::string garbage(8192, '\0');
  for (char& c : garbage) c = static_cast<char>(rng());
  const std::string not_sqlite = dir.write("garbage.db", garbage);
  auto refused = BenchmarkDatabase::open(not_sqlite);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("garbage.db"), std::string::npos) << refused.message();
  EXPECT_NE(refused.message().find("untouched"), std::string::npos) << refused.message();
  EXPECT_EQ(read_bytes(not_sqlite), garbage);

  // A real database whose pages were damaged after its header.
  const std::string damaged = (dir.path() / "damaged.db").string();
  {
    auto db = BenchmarkDatabase::open(damaged);
    ASSERT_TRUE(db.ok());
    for (int k = 0; k < 50; ++k) {
      ASSERT_TRUE(db.value()
                      ->store(test_gpu(), layer_key(3, k, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 6, 1.0))
                      .ok());
    }
  }
  std::string bytes = read_bytes(damaged);
  ASSERT_GT(bytes.size(), 3 * 4096u);
  for (std::size_t i = 4096; i < bytes.size(); ++i) bytes[i] = static_cast<char>(rng());
  std::ofstream(damaged, std::ios::binary | std::ios::trunc) << bytes;
  auto corrupt = BenchmarkDatabase::open(damaged);
  EXPECT_FALSE(corrupt.ok());
  EXPECT_EQ(read_bytes(damaged), bytes);
}

TEST(BenchmarkDatabase, SchemaFromTheFutureIsRefusedUntouched) {
  TempDir dir;
  const std::string path = (dir.path() / "future.db").string();
  {
    auto db = BenchmarkDatabase::open(path, {JournalMode::kDelete, true, false, 60000});
    ASSERT_TRUE(db.ok());
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "UPDATE meta SET value = '99' WHERE key = 'schema_version'", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  const std::string before = read_bytes(path);
  auto refused = BenchmarkDatabase::open(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("99"), std::string::npos) << refused.message();
  EXPECT_NE(refused.message().find("newer"), std::string::npos) << refused.message();
  EXPECT_EQ(read_bytes(path), before);
}

TEST(BenchmarkDatabase, ForeignSqliteDatabaseIsRefused) {
  TempDir dir;
  const std::string path = (dir.path() / "other.db").string();
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "CREATE TABLE photos(id INTEGER)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  const std::string before = read_bytes(path);
  auto refused = BenchmarkDatabase::open(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("not a ucudnn"), std::string::npos) << refused.message();
  EXPECT_EQ(read_bytes(path), before);
}

TEST(BenchmarkDatabase, EmptyFileBecomesADatabase) {
  TempDir dir;
  const std::string path = dir.write("empty.db", "");
  auto db = BenchmarkDatabase::open(path);
  ASSERT_TRUE(db.ok()) << db.message();
  EXPECT_TRUE(db.value()->verify().ok());
  EXPECT_FALSE(
      BenchmarkDatabase::open((dir.path() / "missing.db").string(), {JournalMode::kAuto, false, false, 1000}).ok());
  EXPECT_FALSE(BenchmarkDatabase::open(dir.path().string()).ok()) << "a directory";
}

TEST(JournalMode, ParsesAndPicksTheSafeModeForNetworkFileSystems) {
  EXPECT_EQ(parse_journal_mode("WAL").value(), JournalMode::kWal);
  EXPECT_EQ(parse_journal_mode("delete").value(), JournalMode::kDelete);
  EXPECT_FALSE(parse_journal_mode("memory").ok());
  // /proc is no network file system; the temp dir is local in CI.
  EXPECT_EQ(journal_mode_for(std::filesystem::temp_directory_path().string() + "/x.db"), JournalMode::kWal);
}

}  // namespace
}  // namespace ucudnn
