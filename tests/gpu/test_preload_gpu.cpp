// The LD_PRELOAD layer on the GPU: an unmodified cuDNN program (tests/preload/preload_probe.cpp)
// gets micro-batched convolutions with the same results, and UCUDNN_STATS shows it.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "../preload/probe_runner.h"
#include "gpu_test_support.h"

namespace ucudnn {
namespace {

using testing::run_probe;

class PreloadGpu : public ucudnn_test::GpuTest {};

// The forward row of UCUDNN_STATS's table: "ucudnn: fwd CALLS SPLIT PLAIN QUERIES ...".
bool forward_statistics(const std::string& output, long long* calls, long long* split) {
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string prefix, op;
    if (words >> prefix >> op && prefix == "ucudnn:" && op == "fwd") return static_cast<bool>(words >> *calls >> *split);
  }
  return false;
}

// Runs the probe with the library preloaded (a 16 MiB limit, statistics on, planning with
// `candidates`) and checks what every such run must show against the `plain` run. Leaves the run
// and its forward split count to the test's own checks.
void expect_preloaded_matches_plain(const testing::ProbeRun& plain, const std::string& candidates,
                                    testing::ProbeRun* preloaded, long long* split) {
  *preloaded = run_probe("LD_PRELOAD=" + testing::preload_library_path() +
                         " UCUDNN_FORCE_WORKSPACE_LIMIT=16MiB UCUDNN_STATS=1 UCUDNN_CANDIDATES=" + candidates);
  ASSERT_EQ(preloaded->exit_status, 0) << preloaded->output;
  ASSERT_EQ(preloaded->values.at("forward"), "CUDNN_STATUS_SUCCESS") << preloaded->output;
  // The plan is offered first, and its workspace is within the imposed limit.
  EXPECT_EQ(preloaded->values.at("first_algo"), preloaded->values.at("algo_count")) << preloaded->output;
  EXPECT_LE(std::stoull(preloaded->values.at("workspace_bytes")), std::size_t{16} << 20);
  // Same inputs; cuDNN's default math may use TF32 in either run, and an engine is another kernel
  // than plain cuDNN's (tolerance 5e-3 of the absolute sum, as in the random-convolution tests).
  // A missing or repeated micro-batch changes the sums by about 25%.
  const double sum_abs = std::stod(plain.values.at("output_sum_abs"));
  ASSERT_GT(sum_abs, 0.0);
  EXPECT_NEAR(std::stod(preloaded->values.at("output_sum_abs")), sum_abs, 5e-3 * sum_abs);
  EXPECT_NEAR(std::stod(preloaded->values.at("output_sum")), std::stod(plain.values.at("output_sum")), 5e-3 * sum_abs);
  long long calls = 0;
  ASSERT_TRUE(forward_statistics(preloaded->output, &calls, split)) << preloaded->output;
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(preloaded->values.at("destroy"), "CUDNN_STATUS_SUCCESS");
}

TEST_F(PreloadGpu, UnmodifiedProgramGetsSplitConvolutionsWithTheSameResult) {
  const testing::ProbeRun plain = run_probe("");
  ASSERT_EQ(plain.exit_status, 0) << plain.output;
  ASSERT_EQ(plain.values.at("forward"), "CUDNN_STATUS_SUCCESS") << plain.output;
  // Legacy candidates: a graph engine may need no split within the limit.
  testing::ProbeRun preloaded;
  long long split = 0;
  ASSERT_NO_FATAL_FAILURE(expect_preloaded_matches_plain(plain, "legacy", &preloaded, &split));
  EXPECT_EQ(split, 1) << preloaded.output;
}

TEST_F(PreloadGpu, UnmodifiedProgramRunsGraphEnginesWithTheSameResult) {
  const testing::ProbeRun plain = run_probe("");
  ASSERT_EQ(plain.exit_status, 0) << plain.output;
  testing::ProbeRun engines;
  long long split = 0;
  expect_preloaded_matches_plain(plain, "engines", &engines, &split);
}

// Two ucudnn layers in one process (one left in LD_PRELOAD by an older install): the first plans
// and splits, the second passes its calls straight to cuDNN. Both used to plan: the second split
// the first one's micro-batches as kernels of their own, and each printed its statistics.
TEST_F(PreloadGpu, OfTwoLayersOnlyTheFirstPlansAndTheResultIsPlainCudnns) {
  const testing::ProbeRun plain = run_probe("");
  ASSERT_EQ(plain.exit_status, 0) << plain.output;
  const std::string second = ::testing::TempDir() + "ucudnn_second_layer.so";
  ASSERT_EQ(std::system(("cp '" + testing::preload_library_path() + "' '" + second + "'").c_str()), 0);
  const testing::ProbeRun both =
      run_probe("LD_PRELOAD=" + testing::preload_library_path() + ":" + second +
                " UCUDNN_FORCE_WORKSPACE_LIMIT=16MiB UCUDNN_STATS=1 UCUDNN_CANDIDATES=legacy");
  std::remove(second.c_str());
  ASSERT_EQ(both.exit_status, 0) << both.output;
  ASSERT_EQ(both.values.at("forward"), "CUDNN_STATUS_SUCCESS") << both.output;
  EXPECT_NE(both.output.find("another ucudnn preload layer is loaded too (" + second + ")"), std::string::npos)
      << both.output;
  const double sum_abs = std::stod(plain.values.at("output_sum_abs"));
  EXPECT_NEAR(std::stod(both.values.at("output_sum_abs")), sum_abs, 5e-3 * sum_abs);
  EXPECT_NEAR(std::stod(both.values.at("output_sum")), std::stod(plain.values.at("output_sum")), 5e-3 * sum_abs);
  const std::string table = "ucudnn: op    convolutions";  // the statistics' first header
  std::size_t tables = 0;
  for (auto at = both.output.find(table); at != std::string::npos; at = both.output.find(table, at + 1)) ++tables;
  EXPECT_EQ(tables, 1u) << "one layer's statistics\n" << both.output;
  long long calls = 0, split = 0;
  ASSERT_TRUE(forward_statistics(both.output, &calls, &split)) << both.output;
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(split, 1) << both.output;
}

// A program that fixes its algorithm and sizes its workspace by it (Darknet's half precision does):
// under a forced limit it is told the workspace of ucudnn's plan, within the limit, so that it
// allocates no more, and the convolution, which runs that plan, matches plain cuDNN's.
TEST_F(PreloadGpu, FixedAlgorithmAllocatesOnlyThePlansWorkspaceUnderAForcedLimit) {
  const std::string fixed = " PROBE_FIXED_ALGO=" + std::to_string(CUDNN_CONVOLUTION_FWD_ALGO_FFT);
  const testing::ProbeRun plain = run_probe(fixed);
  ASSERT_EQ(plain.exit_status, 0) << plain.output;
  ASSERT_EQ(plain.values.at("forward"), "CUDNN_STATUS_SUCCESS") << plain.output;
  // FFT's own workspace is far over the limit here, or the test would show nothing.
  const std::size_t limit = std::size_t{16} << 20;
  ASSERT_GT(std::stoull(plain.values.at("workspace_bytes")), limit) << plain.output;
  const testing::ProbeRun preloaded = run_probe("LD_PRELOAD=" + testing::preload_library_path() +
                                                " UCUDNN_FORCE_WORKSPACE_LIMIT=16MiB UCUDNN_STATS=1" + fixed);
  ASSERT_EQ(preloaded.exit_status, 0) << preloaded.output;
  ASSERT_EQ(preloaded.values.at("forward"), "CUDNN_STATUS_SUCCESS") << preloaded.output;
  EXPECT_LE(std::stoull(preloaded.values.at("workspace_bytes")), limit) << preloaded.output;
  // Same inputs; TF32 or another kernel than FFT's: 5e-3 of the absolute sum, as above.
  const double sum_abs = std::stod(plain.values.at("output_sum_abs"));
  ASSERT_GT(sum_abs, 0.0);
  EXPECT_NEAR(std::stod(preloaded.values.at("output_sum_abs")), sum_abs, 5e-3 * sum_abs);
  EXPECT_NEAR(std::stod(preloaded.values.at("output_sum")), std::stod(plain.values.at("output_sum")), 5e-3 * sum_abs);
  long long calls = 0, split = 0;
  ASSERT_TRUE(forward_statistics(preloaded.output, &calls, &split)) << preloaded.output;
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace ucudnn
