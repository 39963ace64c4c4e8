// The LD_PRELOAD layer on a machine without a GPU: it takes over exactly the calls it should,
// passes the rest and foreign handles through to cuDNN, and never recurses or crashes.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "../preload/probe_runner.h"
#include "test_helpers.h"

namespace ucudnn {
namespace {

using testing::kHugeNumber;
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
// one's "real" cuDNN being the second: every convolution planned twice (tests/gpu/test_preload_gpu.cpp
// shows it on the GPU). Here, a program calls the second layer's cudnnCreate itself: passed through,
// cuDNN answers alone, where an intercepting layer would say why the create failed.
TEST(Preload, OfTwoLayersInOneProcessTheFirstInterceptsAndTheSecondPassesThrough) {
  const std::string folder = ::testing::TempDir() + "ucudnn-two-layers";
  std::filesystem::create_directories(folder);
  const std::string second = folder + "/second_layer.so";
  std::filesystem::copy_file(testing::preload_library_path(), second,
                             std::filesystem::copy_options::overwrite_existing);
  const std::string caller = folder + "/call_second_layer";
  std::ofstream(folder + "/call_second_layer.c")
      << "#include <dlfcn.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
         "int main(void) {\n"
         "  void* layer = dlopen(getenv(\"SECOND_LAYER\"), RTLD_NOW | RTLD_NOLOAD);\n"
         "  int (*create)(void**) = layer ? (int (*)(void**))dlsym(layer, \"cudnnCreate\") : 0;\n"
         "  void* handle = 0;\n"
         "  printf(\"second_create=%d\\n\", create ? create(&handle) : -1);\n"
         "  return 0;\n}\n";
  const std::string compile = std::string("'") + UCUDNN_TEST_C_COMPILER + "' -o '" + caller + "' '" + folder +
                              "/call_second_layer.c' -ldl 2>&1";
  ASSERT_EQ(std::system(compile.c_str()), 0) << compile;
  const std::string both = "LD_PRELOAD=" + testing::preload_library_path() + ":" + second;

  const testing::ProbeRun probe = run_probe(both + " UCUDNN_LOG_LEVEL=warn");
  ASSERT_EQ(probe.exit_status, 0) << probe.output;
  EXPECT_EQ(probe.values.at("forward_defined_in"), "libucudnn_preload.so") << probe.output;
  EXPECT_EQ(occurrences(probe.output, "ucudnn: warning: another ucudnn preload layer is loaded too (" + second +
                                          "): this one intercepts"),
            1u)
      << probe.output;

  const testing::ProbeRun called = testing::run_program(caller, both + " SECOND_LAYER=" + second);
  ASSERT_EQ(called.exit_status, 0) << called.output;
  ASSERT_NE(called.values.at("second_create"), "-1") << "the second layer is not loaded\n" << called.output;
  if (probe.values.at("gpu") == "none") {
    EXPECT_EQ(occurrences(called.output, kCreateFailed), 0u) << "the second layer intercepted\n" << called.output;
    EXPECT_NE(called.values.at("second_create"), "0") << called.output;  // cuDNN's own failure, no GPU here
  }
  std::filesystem::remove_all(folder);
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

TEST(Preload, HugeSizeInTheEnvironmentFailsHandleCreationWithBadParam) {
  const testing::ProbeRun run = testing::run_probe("LD_PRELOAD=" + testing::preload_library_path() +
                                                   " UCUDNN_DEFAULT_WORKSPACE_LIMIT=" + kHugeNumber);
  ASSERT_EQ(run.exit_status, 0) << run.output;
  EXPECT_EQ(run.values.at("create"), "CUDNN_STATUS_BAD_PARAM") << run.output;
  EXPECT_NE(run.output.find("UCUDNN_DEFAULT_WORKSPACE_LIMIT: "), std::string::npos) << run.output;
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
