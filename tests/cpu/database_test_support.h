#pragma once
// Shared by the benchmark database tests: the GPU they store rows for, small layers that differ
// in shape, and rows of several algorithms.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "core/conv_layer.h"
#include "core/device_identity.h"
#include "core/measurement.h"
#include "store/database.h"

namespace ucudnn::testing {

/// Options of an open: the journal mode, reading only, the wait for a lock.
inline store::BenchmarkDatabase::Options database_options(JournalMode journal, bool read_only = false,
                                                   int busy_timeout_ms = 60000) {
  store::BenchmarkDatabase::Options options;
  options.journal = journal;
  options.read_only = read_only;
  options.busy_timeout_ms = busy_timeout_ms;
  return options;
}

/// The names in a folder: what a database left beside itself.
inline std::set<std::string> names_in(const std::filesystem::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.insert(entry.path().filename().string());
  return names;
}

/// Runs `body` in a child process that cannot write what its owner made read-only: where the test
/// runs as root, which may write anything, as the unprivileged user 65534 (`open_to_all`, where
/// given, then opened to all users first). The child's exit status: `body`'s result, 10 where it
/// could not drop root; -1 where it could not be run or did not exit.
inline int exit_status_as_unprivileged(const std::function<int()>& body,
                                       const std::filesystem::path& open_to_all = {}) {
  const bool root = geteuid() == 0;
  if (root && !open_to_all.empty() && chmod(open_to_all.c_str(), 0755) != 0) return -1;
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (root && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(10);
    _exit(body());
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

/// `count` rows of distinct layers for `identity`.
inline std::vector<store::StoredRow> stored_rows(const DeviceIdentity& identity, int count, int first_layer = 0,
                                   const std::string& prefix = "layer-signature-") {
  std::vector<store::StoredRow> rows;
  for (int i = 0; i < count; ++i) {
    store::StoredRow row;
    row.identity = identity;
    row.layer = prefix + std::to_string(first_layer + i / 8);
    row.measurement.micro_batch = 1 + i % 8;
    row.measurement.candidate.algorithm = 0;
    row.measurement.time_ms = 0.5 + i;
    row.measured_at = "2026-01-01T00:00:00Z";
    rows.push_back(row);
  }
  return rows;
}

/// The device identity the database tests store their rows under.
inline DeviceIdentity test_gpu() { return DeviceIdentity{"Test GPU 80GB", 90, 132, 91400, 13000}; }

/// A 3x3 convolution (padding 1, stride 1, 4 filters) of `channels` channels, `height` x 8: tests
/// make distinct layers by varying the channels and height, as the layer signature holds both.
inline ConvKey small_layer_key(const std::string& name, int micro_batch, int channels, int height,
                               ConvOp op = ConvOp::kForward) {
  ConvLayerSpec spec;
  spec.name = name;
  spec.batch = micro_batch;
  spec.channels = channels;
  spec.spatial = {height, 8};
  spec.filters = 4;
  spec.filter = {3, 3};
  spec.pad = {1, 1};
  spec.stride = {1, 1};
  spec.dilation = {1, 1};
  auto key = to_conv_key(spec, op);
  EXPECT_TRUE(key.ok()) << key.message();
  return key.value();
}

/// Layer `index` (0, 1, 2, ...: each a distinct shape) of 3 channels at `micro_batch`, forward.
inline ConvKey layer_key(int index, int micro_batch) {
  return small_layer_key("layer" + std::to_string(index), micro_batch, 3, 8 + index);
}

/// `count` legacy rows at `micro_batch`: algorithm i takes 1 + i ms and i MiB of workspace.
inline std::vector<Measurement> rows_for(int micro_batch, int count) {
  std::vector<Measurement> rows;
  for (int algo = 0; algo < count; ++algo) {
    Measurement m;
    m.micro_batch = micro_batch;
    m.candidate.algorithm = algo;
    m.time_ms = 1.0 + algo;
    m.workspace_bytes = static_cast<std::size_t>(algo) << 20;
    rows.push_back(m);
  }
  return rows;
}

/// Writes a database at `path` holding one kernel (layer_key(1, 4)) with three rows, and closes it.
inline ::testing::AssertionResult write_one_kernel(const std::string& path, JournalMode journal) {
  auto db = store::BenchmarkDatabase::open(path, database_options(journal));
  if (!db.ok()) return ::testing::AssertionFailure() << db.message();
  const Status stored = (*db)->store(test_gpu(), layer_key(1, 4), CandidateKind::kLegacy, SIZE_MAX, rows_for(4, 3));
  if (!stored.ok()) return ::testing::AssertionFailure() << stored.message();
  return ::testing::AssertionSuccess();
}

}  // namespace ucudnn::testing
