// The graph-API front-end on the GPU: a program that loads cuDNN as TensorFlow does and runs
// one-convolution graphs (tests/preload/graph_probe.cpp) keeps its own plans where they fit the
// limit and gets ucudnn's within it where they do not, with results as close to cuDNN's legacy API
// as cuDNN's own graph plans are.

#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>

#include "../preload/probe_runner.h"
#include "gpu_test_support.h"

namespace ucudnn {
namespace {

class GraphApiGpu : public ucudnn_test::GpuTest {};

struct ProbeCases {
  int ok = 0, failed = 0;
  unsigned long long largest_workspace = 0;
};

// The probe's "case=... workspace=W ... ok|FAIL" lines.
ProbeCases cases(const std::string& output) {
  ProbeCases c;
  std::istringstream in(output);
  const std::regex workspace("workspace=([0-9]+)");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("case=", 0) != 0) continue;
    std::smatch m;
    if (std::regex_search(line, m, workspace)) c.largest_workspace = std::max(c.largest_workspace, std::stoull(m[1]));
    (line.size() >= 3 && line.compare(line.size() - 3, 3, " ok") == 0 ? c.ok : c.failed) += 1;
  }
  return c;
}

long long stat(const std::string& output, const std::string& pattern) {
  std::smatch m;
  return std::regex_search(output, m, std::regex(pattern)) ? std::stoll(m[1]) : -1;
}

// TF32 off on both sides, so that FP32 cases compare to rounding (the probe's tolerances).
constexpr const char* kExact = "NVIDIA_TF32_OVERRIDE=0";

TEST_F(GraphApiGpu, ATensorFlowStyleProgramsConvolutionsRunThroughUcudnnWithinTheLimit) {
  const testing::ProbeRun plain = testing::run_graph_probe(kExact);
  ASSERT_EQ(plain.exit_status, 0) << plain.output;
  const ProbeCases plain_cases = cases(plain.output);
  ASSERT_EQ(plain_cases.ok, 12) << plain.output;

  for (const auto& [limit, bytes] : {std::pair<std::string, unsigned long long>{"256KiB", 256ull << 10},
                                     std::pair<std::string, unsigned long long>{"0", 0}}) {
    const testing::ProbeRun run =
        testing::run_graph_probe(std::string(kExact) + " LD_PRELOAD=" + testing::preload_library_path() +
                                 " UCUDNN_FORCE_WORKSPACE_LIMIT=" + limit + " UCUDNN_STATS=1");
    ASSERT_EQ(run.exit_status, 0) << run.output;
    const ProbeCases got = cases(run.output);
    EXPECT_EQ(got.ok, 12) << run.output;
    EXPECT_EQ(got.failed, 0) << run.output;
    EXPECT_LE(got.largest_workspace, bytes) << "a plan reported more workspace than the limit\n" << run.output;
    // Every case's plan was followed and ran; at these limits most of the program's plans do not
    // fit, and those became ucudnn's.
    EXPECT_GE(stat(run.output, "graph API: ([0-9]+) plans intercepted"), 12) << run.output;
    EXPECT_EQ(stat(run.output, "plans intercepted, [0-9]+ passed through, ([0-9]+) executions"), 12) << run.output;
    EXPECT_LT(stat(run.output, "executions; ([0-9]+) kept as the program built them"), 12) << run.output;
    EXPECT_NE(run.output.find("front-ends active: legacy API, graph API, dlopen"), std::string::npos) << run.output;
  }
}

TEST_F(GraphApiGpu, TheProgramsOwnPlansRunAsTheyAreWhereTheyFitTheLimit) {
  // A limit no plan of the probe reaches: every plan is the program's own, its workspace cuDNN's.
  const testing::ProbeRun plain = testing::run_graph_probe(kExact);
  ASSERT_EQ(plain.exit_status, 0) << plain.output;
  const testing::ProbeRun run = testing::run_graph_probe(std::string(kExact) + " LD_PRELOAD=" +
                                                         testing::preload_library_path() +
                                                         " UCUDNN_FORCE_WORKSPACE_LIMIT=16GiB UCUDNN_STATS=1");
  ASSERT_EQ(run.exit_status, 0) << run.output;
  const ProbeCases got = cases(run.output);
  EXPECT_EQ(got.ok, 12) << run.output;
  EXPECT_EQ(got.largest_workspace, cases(plain.output).largest_workspace) << "a plan's workspace was rewritten";
  EXPECT_EQ(stat(run.output, "executions; ([0-9]+) kept as the program built them"), 12) << run.output;
  EXPECT_EQ(stat(run.output, "plans intercepted, [0-9]+ passed through, ([0-9]+) executions"), 12) << run.output;
}

TEST_F(GraphApiGpu, WithNoLimitForcedTheMemoryBudgetDecidesWhichPlansAreKept) {
  const testing::ProbeRun plain = testing::run_graph_probe(kExact);
  ASSERT_EQ(plain.exit_status, 0) << plain.output;
  const std::string preloaded = std::string(kExact) + " LD_PRELOAD=" + testing::preload_library_path() +
                                " UCUDNN_FORCE_WORKSPACE_LIMIT= UCUDNN_WORKSPACE_LIMIT= UCUDNN_STATS=1";
  // The default budget, the device's free memory: the probe's plans all fit, and run as built.
  const testing::ProbeRun free_memory = testing::run_graph_probe(preloaded + " UCUDNN_MEMORY_BUDGET=");
  ASSERT_EQ(free_memory.exit_status, 0) << free_memory.output;
  EXPECT_EQ(cases(free_memory.output).ok, 12) << free_memory.output;
  EXPECT_EQ(cases(free_memory.output).largest_workspace, cases(plain.output).largest_workspace) << free_memory.output;
  EXPECT_EQ(stat(free_memory.output, "executions; ([0-9]+) kept as the program built them"), 12) << free_memory.output;
  // A budget below what the process already holds (its CUDA context alone): nothing is left, so
  // every plan that needs workspace becomes ucudnn's, within none, and still computes right.
  const testing::ProbeRun spent = testing::run_graph_probe(preloaded + " UCUDNN_MEMORY_BUDGET=1MiB");
  ASSERT_EQ(spent.exit_status, 0) << spent.output;
  const ProbeCases got = cases(spent.output);
  EXPECT_EQ(got.ok, 12) << spent.output;
  EXPECT_EQ(got.failed, 0) << spent.output;
  EXPECT_EQ(got.largest_workspace, 0u) << "a plan took workspace the budget did not leave\n" << spent.output;
  EXPECT_LT(stat(spent.output, "executions; ([0-9]+) kept as the program built them"), 12) << spent.output;
  EXPECT_EQ(stat(spent.output, "plans intercepted, [0-9]+ passed through, ([0-9]+) executions"), 12) << spent.output;
}

// Micro-batch offers (api/graph/offer.h): the heuristics answer three configurations more, right
// after cuDNN's first; the probe runs the first offer (GRAPH_PROBE_CONFIG=1), or where it is
// refused, the next configuration that builds (cuDNN's first where no later one does). Where
// nothing is left of the budget, offers are made where cuDNN's first configuration needs any
// workspace, are ucudnn's plans within none and compute right; where the GPU's memory is free,
// cuDNN's first configuration fits every offer's size, so none is made and the program runs
// cuDNN's own configurations.
TEST_F(GraphApiGpu, MicroBatchOffersAreUcudnnsPlansWhereCudnnsFirstConfigurationDoesNotFitTheirSize) {
  const std::string preloaded = std::string(kExact) + " LD_PRELOAD=" + testing::preload_library_path() +
                                " UCUDNN_FORCE_WORKSPACE_LIMIT= UCUDNN_WORKSPACE_LIMIT= UCUDNN_STATS=1" +
                                " GRAPH_PROBE_CONFIG=1";
  const testing::ProbeRun spent =
      testing::run_graph_probe(preloaded + " UCUDNN_MICRO_BATCH_OFFERS=1 UCUDNN_MEMORY_BUDGET=1MiB");
  ASSERT_EQ(spent.exit_status, 0) << spent.output;
  const ProbeCases got = cases(spent.output);
  EXPECT_EQ(got.ok, 12) << spent.output;
  EXPECT_EQ(got.largest_workspace, 0u) << "a plan took workspace the budget did not leave\n" << spent.output;
  EXPECT_GE(stat(spent.output, "graph API: ([0-9]+) micro-batch offers"), 3) << spent.output;
  EXPECT_GE(stat(spent.output, "micro-batch offers, ([0-9]+) of their plans planned by ucudnn"), 1) << spent.output;

  const testing::ProbeRun free_memory =
      testing::run_graph_probe(preloaded + " UCUDNN_MICRO_BATCH_OFFERS=1 UCUDNN_MEMORY_BUDGET=");
  ASSERT_EQ(free_memory.exit_status, 0) << free_memory.output;
  EXPECT_EQ(cases(free_memory.output).ok, 12) << free_memory.output;
  EXPECT_LE(stat(free_memory.output, "graph API: ([0-9]+) micro-batch offers"), 0) << free_memory.output;
  EXPECT_EQ(stat(free_memory.output, "executions; ([0-9]+) kept as the program built them"), 12) << free_memory.output;

  // Offers left to auto (the default) in a program that is not PyTorch: none is made.
  const testing::ProbeRun off = testing::run_graph_probe(preloaded + " UCUDNN_MEMORY_BUDGET=1MiB");
  EXPECT_NE(off.output.find("graph API:"), std::string::npos) << off.output;
  EXPECT_EQ(off.output.find("micro-batch offers"), std::string::npos) << off.output;
}

}  // namespace
}  // namespace ucudnn
