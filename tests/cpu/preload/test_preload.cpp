// The LD_PRELOAD layer on a machine without a GPU: it takes over exactly the calls it should,
// passes the rest and foreign handles through to cuDNN, and never recurses or crashes.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "../preload/probe_runner.h"

namespace ucudnn {
namespace {

using testing::run_probe;

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

constexpr const char* kCreateFailed = "ucudnn: error: cudnnCreate failed (CUDNN_STATUS_";

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
    EXPECT_EQ(occurrences(preloaded.output, kCreateFailed), 1u) << "the program is told why\n" << preloaded.output;
  }
}

// A program that loads cuDNN as TensorFlow does (dlopen with RTLD_LOCAL, dlsym on that handle)
// reaches ucudnn's definitions too, and everything else in cuDNN unchanged.
TEST(Preload, AProgramThatLooksCudnnUpOnItsOwnHandleReachesTheLayer) {
  const testing::ProbeRun plain = testing::run_graph_probe("");
  ASSERT_EQ(plain.exit_status, 0) << plain.output;
  EXPECT_EQ(plain.values.at("execute_defined_in").rfind("libcudnn", 0), 0u) << plain.output;
  EXPECT_EQ(plain.values.at("tensor_round_trip"), "ok") << plain.output;

  const testing::ProbeRun preloaded = testing::run_graph_probe("LD_PRELOAD=" + testing::preload_library_path());
  ASSERT_EQ(preloaded.exit_status, 0) << preloaded.output;
  EXPECT_EQ(preloaded.values.at("execute_defined_in"), "libucudnn_preload.so") << preloaded.output;
  EXPECT_EQ(preloaded.values.at("create_defined_in"), "libucudnn_preload.so") << preloaded.output;
  EXPECT_EQ(preloaded.values.at("version_defined_in"), plain.values.at("version_defined_in"));
  EXPECT_EQ(preloaded.values.at("version"), plain.values.at("version"));
  // The backend calls reach cuDNN: a descriptor reads back what was set.
  EXPECT_EQ(preloaded.values.at("tensor_round_trip"), "ok") << preloaded.output;
}

// Two ucudnn layers in one process (an older install's left in LD_PRELOAD): the first intercepts
// and says so once, the second passes every call through. Both used to take part, the first
// one's "real" cudnnCreate being the second's: each made a handle state, and on a machine without
// a GPU each said the create failed. (The same on the GPU: tests/gpu/test_preload_gpu.cpp.)
TEST(Preload, OfTwoLayersInOneProcessTheFirstInterceptsAndTheSecondPassesThrough) {
  const std::string second = ::testing::TempDir() + "ucudnn_second_layer.so";
  ASSERT_EQ(std::system(("cp '" + testing::preload_library_path() + "' '" + second + "'").c_str()), 0);
  const testing::ProbeRun both =
      run_probe("LD_PRELOAD=" + testing::preload_library_path() + ":" + second + " UCUDNN_LOG_LEVEL=warn");
  std::remove(second.c_str());
  ASSERT_EQ(both.exit_status, 0) << both.output;
  EXPECT_EQ(both.values.at("forward_defined_in"), "libucudnn_preload.so") << both.output;
  EXPECT_EQ(occurrences(both.output, "ucudnn: warning: another ucudnn preload layer is loaded too (" + second +
                                         "): this one intercepts"),
            1u)
      << both.output;
  if (both.values.at("gpu") == "none") {
    EXPECT_EQ(occurrences(both.output, kCreateFailed), 1u) << "one layer made a handle state\n" << both.output;
  }
}

TEST(Preload, ABadEnvironmentValueFailsHandleCreationWithItsName) {
  const testing::ProbeRun run =
      run_probe("LD_PRELOAD=" + testing::preload_library_path() + " UCUDNN_FORCE_WORKSPACE_LIMIT=lots");
  ASSERT_EQ(run.exit_status, 0) << run.output;
  EXPECT_EQ(run.values.at("create"), "CUDNN_STATUS_BAD_PARAM") << run.output;
  EXPECT_EQ(run.values.at("create_again"), "CUDNN_STATUS_BAD_PARAM") << run.output;
  EXPECT_EQ(occurrences(run.output,
                        "ucudnn: error: cudnnCreate failed (CUDNN_STATUS_BAD_PARAM): UCUDNN_FORCE_WORKSPACE_LIMIT: "
                        "invalid size 'lots'"),
            1u)
      << "one line, for the first failure only\n"
      << run.output;
}

// A failure that is not a bad value (here a benchmark device that does not exist; without a GPU,
// no device at all) is said too, once, whatever the log level, unless the log is off; the program
// gets cuDNN's status either way.
TEST(Preload, AFailedHandleCreationSaysWhyOnceUnlessTheLogIsOff) {
  const std::string preload = "LD_PRELOAD=" + testing::preload_library_path() + " UCUDNN_BENCHMARK_DEVICES=99";
  for (const char* level : {"", " UCUDNN_LOG_LEVEL=error", " UCUDNN_LOG_LEVEL=debug"}) {
    const testing::ProbeRun run = run_probe(preload + level);
    ASSERT_EQ(run.exit_status, 0) << run.output;
    EXPECT_EQ(run.values.at("create").rfind("CUDNN_STATUS_", 0), 0u) << run.output;
    EXPECT_NE(run.values.at("create"), "CUDNN_STATUS_SUCCESS") << run.output;
    EXPECT_EQ(run.values.at("create_again"), run.values.at("create")) << run.output;
    EXPECT_EQ(occurrences(run.output, kCreateFailed), 1u) << level << "\n" << run.output;
  }
  const testing::ProbeRun silent = run_probe(preload + " UCUDNN_LOG_LEVEL=off");
  ASSERT_EQ(silent.exit_status, 0) << silent.output;
  EXPECT_NE(silent.values.at("create"), "CUDNN_STATUS_SUCCESS") << silent.output;
  EXPECT_EQ(silent.output.find("ucudnn: "), std::string::npos) << silent.output;
}

TEST(Preload, TheDeprecatedLimitNameWorksWithOneWarningNamingTheNewOne) {
  const std::string preload = "LD_PRELOAD=" + testing::preload_library_path();
  const testing::ProbeRun run = run_probe(preload + " UCUDNN_WORKSPACE_LIMIT=16MiB");
  ASSERT_EQ(run.exit_status, 0) << run.output;
  EXPECT_EQ(occurrences(run.output, "ucudnn: warning: UCUDNN_WORKSPACE_LIMIT is deprecated and will be removed: set "
                                    "UCUDNN_FORCE_WORKSPACE_LIMIT instead"),
            1u)
      << run.output;
  EXPECT_EQ(run.output.find("invalid"), std::string::npos) << run.output;

  const testing::ProbeRun both =
      run_probe(preload + " UCUDNN_WORKSPACE_LIMIT=16MiB UCUDNN_FORCE_WORKSPACE_LIMIT=8MiB");
  ASSERT_EQ(both.exit_status, 0) << both.output;
  EXPECT_EQ(both.values.at("create"), "CUDNN_STATUS_BAD_PARAM") << both.output;
  EXPECT_NE(both.output.find("(its deprecated name) disagree: unset UCUDNN_WORKSPACE_LIMIT"), std::string::npos)
      << both.output;
}

}  // namespace
}  // namespace ucudnn
