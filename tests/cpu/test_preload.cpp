// The LD_PRELOAD layer on a machine without a GPU: it takes over exactly the calls it should,
// passes the rest and foreign handles through to cuDNN, and never recurses or crashes.

#include <gtest/gtest.h>

#include "../preload/probe_runner.h"

namespace ucudnn {
namespace {

using testing::run_probe;

TEST(Preload, InterposesTheConvolutionCallsAndPassesTheRestThrough) {
  const testing::ProbeRun plain = run_probe("");
  ASSERT_EQ(plain.exit_status, 0) << plain.output;
  EXPECT_EQ(plain.values.at("forward_defined_in").rfind("libcudnn", 0), 0u) << plain.output;

  const testing::ProbeRun preloaded = run_probe("LD_PRELOAD=" + testing::preload_library_path());
  ASSERT_EQ(preloaded.exit_status, 0) << preloaded.output;
  EXPECT_EQ(preloaded.values.at("forward_defined_in"), "libucudnn_preload.so") << preloaded.output;
  EXPECT_EQ(preloaded.values.at("create_defined_in"), "libucudnn_preload.so") << preloaded.output;
  // Everything else is cuDNN's own.
  EXPECT_EQ(preloaded.values.at("version_defined_in"), plain.values.at("version_defined_in"));
  // A handle the layer did not make reaches cuDNN, which answers for itself.
  EXPECT_EQ(preloaded.values.at("null_handle_workspace"), plain.values.at("null_handle_workspace"));
  EXPECT_EQ(preloaded.values.at("null_handle_forward"), plain.values.at("null_handle_forward"));
  EXPECT_EQ(preloaded.values.at("null_handle_forward"), "CUDNN_STATUS_BAD_PARAM");
  if (preloaded.values.at("gpu") == "none") {
    EXPECT_NE(preloaded.values.at("create"), "CUDNN_STATUS_SUCCESS");  // an error status, not a crash
  }
}

TEST(Preload, ABadEnvironmentValueFailsHandleCreationWithItsName) {
  const testing::ProbeRun run =
      run_probe("LD_PRELOAD=" + testing::preload_library_path() + " UCUDNN_WORKSPACE_LIMIT=lots");
  ASSERT_EQ(run.exit_status, 0) << run.output;
  EXPECT_EQ(run.values.at("create"), "CUDNN_STATUS_BAD_PARAM") << run.output;
  EXPECT_NE(run.output.find("UCUDNN_WORKSPACE_LIMIT: invalid size 'lots'"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace ucudnn
