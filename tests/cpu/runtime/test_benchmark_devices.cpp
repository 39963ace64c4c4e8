// UCUDNN_BENCHMARK_DEVICES against the devices a process sees (runtime/device_info.h).
#include <gtest/gtest.h>

#include <vector>

#include "runtime/device_info.h"

namespace {

TEST(BenchmarkDevices, SyntaxFromTheSettingRangeFromTheVisibleDevices) {
  const auto all = ucudnn::runtime::parse_benchmark_devices("all", 3);
  ASSERT_TRUE(all.ok()) << all.message();
  EXPECT_EQ(all.value(), (std::vector<int>{0, 1, 2}));
  const auto listed = ucudnn::runtime::parse_benchmark_devices("2,0", 3);
  ASSERT_TRUE(listed.ok()) << listed.message();
  EXPECT_EQ(listed.value(), (std::vector<int>{2, 0}));
  const auto missing = ucudnn::runtime::parse_benchmark_devices("0,3", 3);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("device 3 does not exist (3 visible)"), std::string::npos) << missing.message();
  const auto twice = ucudnn::runtime::parse_benchmark_devices("1,1", 3);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.message().find("UCUDNN_BENCHMARK_DEVICES='1,1': device 1 is named twice"), std::string::npos)
      << twice.message();
}

}  // namespace
