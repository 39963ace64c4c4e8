#pragma once
// What the tests of `ucudnn plan` share: its JSON output, the recorded table's rows, the fixture.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_test_support.h"
#include "core/measurement_csv.h"
#include "test_helpers.h"

namespace ucudnn::testing {

using Json = nlohmann::ordered_json;

constexpr std::size_t kLimit64MiB = std::size_t{64} << 20;

inline std::vector<std::string> split_words(const std::string& line) {
  std::istringstream in(line);
  return {std::istream_iterator<std::string>(in), std::istream_iterator<std::string>()};
}

/// `ucudnn plan ARGS --json`, which must succeed without a word on stderr.
inline Json plan_json(const std::vector<std::string>& args) {
  const CliResult result = run(with(args, {"--json"}));
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_TRUE(result.err.empty()) << result.err;
  return Json::parse(result.out);
}

/// A JSON object's keys, in order.
inline std::vector<std::string> keys(const Json& object) {
  std::vector<std::string> names;
  for (const auto& item : object.items()) names.push_back(item.key());
  return names;
}

/// The quickest row of the table at (size, algo; any algo where negative) within the limit;
/// infinity if there is none.
inline double measured_time(const KernelMeasurements& kernel, int size, int algo, std::size_t limit) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& row : kernel.rows) {
    if (row.micro_batch == size && row.workspace_bytes <= limit && (algo < 0 || row.candidate.algorithm == algo)) {
      best = std::min(best, row.time_ms);
    }
  }
  return best;
}

/// A kernel's JSON plan entry against its table: its micro-batches have allowed sizes and the keys
/// size, algo and count, cover the batch, and its time is the sum of their rows' times (each the
/// quickest row of its size and algorithm within `limit`).
inline void expect_micro_batches_match_table(const Json& entry, const KernelMeasurements& kernel,
                                             const std::vector<int>& allowed, std::size_t limit) {
  int covered = 0;
  double time = 0.0;
  for (const auto& run : entry["micro_batches"]) {
    EXPECT_EQ(keys(run), (std::vector<std::string>{"size", "algo", "count"}));
    const int size = run["size"];
    const int count = run["count"];
    EXPECT_NE(std::find(allowed.begin(), allowed.end(), size), allowed.end()) << size;
    covered += size * count;
    time += count * measured_time(kernel, size, run["algo"], limit);
  }
  EXPECT_EQ(covered, kernel.batch);
  EXPECT_NEAR(entry["time_ms"].get<double>(), time, 1e-6);
}

class PlanCommand : public ::testing::Test {
 protected:
  TempDir dir_;
  const std::string alexnet_ = alexnet_csv_path();
};

}  // namespace ucudnn::testing
