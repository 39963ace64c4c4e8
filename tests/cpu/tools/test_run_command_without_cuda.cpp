// `ucudnn run` in the build without CUDA, which has no preload library: one line saying so, and a
// failure. The CUDA build's `run` is tested by test_run_command.cpp (left out of this build).

#include <gtest/gtest.h>

#include "cli_test_support.h"
#include "tools/build_info.h"
#include "tools/cli.h"

namespace ucudnn {
using tools::kExitDataError;
namespace {

TEST(RunCommandWithoutCuda, SaysItIsUnavailableInThisBuild) {
  if (tools::compiled_versions()) GTEST_SKIP() << "a CUDA build: test_run_command.cpp tests `run`";
  testing::expect_error({"run", "--", "true"}, kExitDataError, "`run` is unavailable in this build");
  testing::expect_error({"run", "--dry-run", "--", "python3", "train.py"}, kExitDataError,
                        "built without the CUDA toolkit and cuDNN");
}

}  // namespace
}  // namespace ucudnn
