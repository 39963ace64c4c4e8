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
    if (row.micro_batch == size && row.workspace_bytes <= limit && (algo < 0 || row.algo == algo)) {
      best = std::min(best, row.time_ms);
    }
  }
  return best;
}

class PlanCommand : public ::testing::Test {
 protected:
  TempDir dir_;
  const std::string alexnet_ = alexnet_csv_path();
};

}  // namespace ucudnn::testing
