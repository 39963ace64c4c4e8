// The ceiling job's scripts without a GPU (bench/gpu/ceiling.sh runs them on one): the choice of
// kernels from a baselines run (bench/ceiling_kernels.py), the table of ucudnn's plans against the
// ceiling (bench/summarize_ceiling.py), and the kernel list the job reads.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "shell_run.h"
#include "test_helpers.h"

namespace ucudnn::testing {
namespace {

const std::string kBench = std::string(UCUDNN_SOURCE_DIR) + "/bench";

// A benchmark run's JSON as ucudnn_conv_benchmark writes it, with kernels {layer, op, ucudnn ms,
// unlimited ms}.
struct Kernel {
  std::string layer, op;
  double ucudnn_ms, unlimited_ms;
};
std::string run_json(const std::string& type, const std::vector<Kernel>& kernels) {
  std::ostringstream json;
  json << R"({"network": "alexnet", "data_type": ")" << type
       << R"(", "layout": "NHWC", "workspace_limit_bytes": 8388608, "kernels": [)";
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const Kernel& k = kernels[i];
    json << (i ? "," : "") << R"({"layer": ")" << k.layer << R"(", "op": ")" << k.op << R"(", "ucudnn_time_ms": )"
         << k.ucudnn_ms << R"(, "ucudnn_plan": "2 x 128 eng1", )"
         << R"("ucudnn_workspace_bytes": 4194304, "best_at_limit_time_ms": 3.0, )"
         << R"("best_unlimited_time_ms": )" << k.unlimited_ms << "}";
  }
  json << "]}";
  return json.str();
}

class CeilingScripts : public ::testing::Test {
 protected:
  void SetUp() override {
    if (shell("command -v python3").status != 0) GTEST_SKIP() << "python3 is not installed (the scripts need it)";
  }
  TempDir dir;
};

TEST_F(CeilingScripts, TheKernelsChosenAreThoseLosingTheMostMillisecondsAgainstTheUnlimited) {
  // conv2:bwdf loses 3 ms (the largest ratio is conv1:fwd's, 0.4 ms lost of 0.1), conv3:fwd 1 ms.
  dir.write("alexnet-half-NHWC-8MiB.json", run_json("half", {{"alex_conv1", "fwd", 0.5, 0.1},
                                                             {"alex_conv2", "bwdf", 5.0, 2.0},
                                                             {"alex_conv3", "fwd", 2.0, 1.0},
                                                             {"alex_conv4", "fwd", 1.0, 1.0}}));
  const Shell chosen = shell("python3 " + kBench + "/ceiling_kernels.py '" + dir.path().string() + "'");
  ASSERT_EQ(chosen.status, 0) << chosen.output;
  EXPECT_TRUE(contains(chosen.output, "\nalexnet half:NHWC 8MiB alex_conv2:bwdf,alex_conv3:fwd\n")) << chosen.output;
  const Shell three = shell("python3 " + kBench + "/ceiling_kernels.py --per-row 3 '" + dir.path().string() + "'");
  EXPECT_TRUE(contains(three.output, " alex_conv2:bwdf,alex_conv3:fwd,alex_conv1:fwd\n")) << three.output;
  const Shell empty = shell("python3 " + kBench + "/ceiling_kernels.py '" + (dir.path() / "none").string() + "'");
  EXPECT_NE(empty.status, 0);
  EXPECT_TRUE(contains(empty.output, "no JSON file")) << empty.output;
}

TEST_F(CeilingScripts, TheTablePairsEachKernelWithItsCeilingAndMarksAMissBeyondFivePercent) {
  dir.write("alexnet-bfloat16-NHWC-8MiB-heuristics.json",
            run_json("bfloat16", {{"alex_conv1", "bwdf", 2.2, 1.0}, {"alex_conv2", "fwd", 1.02, 0.9}}));
  dir.write("alexnet-bfloat16-NHWC-8MiB-sweep.json",
            run_json("bfloat16", {{"alex_conv1", "bwdf", 1.1, 0.9}, {"alex_conv2", "fwd", 1.0, 0.8}}));
  // A run without its pair is left out.
  dir.write("resnet18-bfloat16-NHWC-8MiB-heuristics.json", run_json("bfloat16", {{"conv1", "fwd", 1.0, 1.0}}));
  const Shell summary = shell("python3 " + kBench + "/summarize_ceiling.py '" + dir.path().string() + "'");
  ASSERT_EQ(summary.status, 0) << summary.output;
  EXPECT_TRUE(contains(summary.output,
                       "| alex_conv1:bwdf | 2.200 (2 x 128 eng1) | 1.100 (2 x 128 eng1, 4.0 MiB) | "
                       "3.000 | 0.900 | 2.00 miss | 0.82x |"))
      << summary.output;
  EXPECT_TRUE(contains(summary.output, "| alex_conv2:fwd | 1.020 (2 x 128 eng1) | 1.000")) << summary.output;
  EXPECT_TRUE(contains(summary.output, "| 1.02 | 0.80x |")) << summary.output;
  EXPECT_FALSE(contains(summary.output, "conv1:fwd")) << "resnet18 has no sweep run";
  EXPECT_TRUE(contains(summary.output, "1 of 2 kernels within 1.05x of the ceiling.")) << summary.output;
  std::ifstream written(dir.path() / "ceiling-table.md");
  EXPECT_TRUE(written.good()) << "the table is also a file beside the runs";
  TempDir empty;
  const Shell none = shell("python3 " + kBench + "/summarize_ceiling.py '" + empty.path().string() + "'");
  EXPECT_NE(none.status, 0);
  EXPECT_TRUE(contains(none.output, "no pair")) << none.output;
}

TEST_F(CeilingScripts, ARefineRunAddsItsPlanItsRatioAndEachKindsPlanningTime) {
  auto with_seconds = [](std::string json, double seconds) {
    return json.insert(json.size() - 1, R"(, "ucudnn_planning_seconds": )" + std::to_string(seconds));
  };
  dir.write("alexnet-half-NHWC-8MiB-heuristics.json",
            with_seconds(run_json("half", {{"alex_conv1", "fwd", 0.58, 0.2}}), 10.0));
  dir.write("alexnet-half-NHWC-8MiB-refine.json",
            with_seconds(run_json("half", {{"alex_conv1", "fwd", 0.41, 0.2}}), 11.5));
  dir.write("alexnet-half-NHWC-8MiB-sweep.json",
            with_seconds(run_json("half", {{"alex_conv1", "fwd", 0.40, 0.2}}), 90.0));
  const Shell summary = shell("python3 " + kBench + "/summarize_ceiling.py '" + dir.path().string() + "'");
  ASSERT_EQ(summary.status, 0) << summary.output;
  EXPECT_TRUE(contains(summary.output, "| 1.45 miss | 0.50x | 0.410 (2 x 128 eng1) | 1.02 |")) << summary.output;
  EXPECT_TRUE(contains(summary.output, "0 of 1 kernels within 1.05x of the ceiling.")) << summary.output;
  EXPECT_TRUE(contains(summary.output, "With UCUDNN_ENGINE_KNOBS=refine: 1 of 1 kernels within 1.05x."))
      << summary.output;
  EXPECT_TRUE(
      contains(summary.output, "Planning time, summed over the runs: heuristics 10.0 s, refine 11.5 s, sweep 90.0 s."))
      << summary.output;
}

TEST_F(CeilingScripts, TheJobsListHasTwoKernelsOfEachReadmeRowAndTheOddLayers) {
  std::ifstream list(kBench + "/ceiling-kernels.txt");
  ASSERT_TRUE(list.good());
  int kernels = 0, rows = 0, everything = 0;
  for (std::string line; std::getline(list, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string network, precision, limit, chosen, extra;
    ASSERT_TRUE(static_cast<bool>(words >> network >> precision >> limit >> chosen)) << line;
    EXPECT_FALSE(static_cast<bool>(words >> extra)) << line;
    EXPECT_NE(precision.find(':'), std::string::npos) << line;
    if (chosen == "all") {
      EXPECT_TRUE(std::ifstream(std::string(UCUDNN_SOURCE_DIR) + "/" + network).good()) << line;
      ++everything;
      continue;
    }
    ++rows;
    kernels += 1 + static_cast<int>(std::count(chosen.begin(), chosen.end(), ','));
  }
  EXPECT_EQ(rows, 18) << "3 networks x 3 precisions x 2 limits";
  EXPECT_GE(kernels, 36);
  EXPECT_GE(everything, 2) << "the 1-D, 3-D, grouped and dilated layers, and the first layers padded";
}

}  // namespace
}  // namespace ucudnn::testing
