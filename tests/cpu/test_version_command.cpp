// `ucudnn --version` agrees with the CHANGELOG: a tree with changes listed as unreleased says so.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "cli_test_support.h"

namespace ucudnn {
namespace {

TEST(VersionCommand, SaysWhenTheTreeHoldsUnreleasedChanges) {
  std::ifstream changelog(std::filesystem::path(UCUDNN_SOURCE_DIR) / "CHANGELOG.md");
  bool unreleased = false;
  for (std::string line; std::getline(changelog, line);) unreleased = unreleased || line.rfind("## Unreleased", 0) == 0;
  const testing::CliResult result = testing::run({"--version"});
  ASSERT_EQ(result.status, 0) << result.err;
  const std::string first = result.out.substr(0, result.out.find('\n'));
  EXPECT_EQ(first.find("+unreleased") != std::string::npos, unreleased) << first;
  EXPECT_TRUE(std::regex_search(first, std::regex("^ucudnn [0-9]+\\.[0-9]+\\.[0-9]+"))) << first;
}

}  // namespace
}  // namespace ucudnn
