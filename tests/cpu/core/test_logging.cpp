// The logger (core/logging.h): warn on stderr until configure_logging hands it a level and a file,
// as the one reading of the settings does (core/env_config.h).
#include <gtest/gtest.h>

#include <string>

#include "core/logging.h"
#include "test_helpers.h"

namespace {

using ucudnn::LogLevel;

// The process's logger is shared: each test puts back what the test program runs with.
class Logging : public ::testing::Test {
 protected:
  void TearDown() override { ucudnn::configure_logging(LogLevel::kWarn, ""); }
};

TEST_F(Logging, TheLevelHandedOverDecidesWhatIsLogged) {
  ucudnn::configure_logging(LogLevel::kOff, "");
  EXPECT_FALSE(ucudnn::detail::log_enabled(LogLevel::kError));
  ucudnn::configure_logging(LogLevel::kInfo, "");
  EXPECT_TRUE(ucudnn::detail::log_enabled(LogLevel::kInfo));
  EXPECT_FALSE(ucudnn::detail::log_enabled(LogLevel::kDebug));
  EXPECT_FALSE(ucudnn::detail::log_enabled(LogLevel::kOff)) << "off is no level a message has";
}

TEST_F(Logging, LinesGoToTheFileHandedOver) {
  ucudnn::testing::TempDir dir;
  const std::string file = (dir.path() / "ucudnn.log").string();
  ucudnn::configure_logging(LogLevel::kDebug, file);
  UCUDNN_LOG_DEBUG("a line for the file " << 42);
  ucudnn::configure_logging(LogLevel::kWarn, "");  // closes the file
  EXPECT_EQ(ucudnn::testing::read_bytes(file), "ucudnn: debug: a line for the file 42\n");
}

}  // namespace
