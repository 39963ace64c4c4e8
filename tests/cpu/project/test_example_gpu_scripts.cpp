// The examples' GPU scripts (examples/darknet/gpu.sh, examples/caffe_patch/gpu.sh) as a user meets
// them without a GPU: --help is a usage written for that user (what the script does, that it needs
// a GPU, the variables it reads, where its results go), not the maintainers' notes; alone, or with
// a word it does not know, it says so in one line; `run` where nvidia-smi lists no GPU stops in one
// line saying so, before anything is unpacked or written.

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <string>
#include <vector>

#include "shell_run.h"
#include "test_helpers.h"

namespace ucudnn::testing {
namespace {

struct Example {
  std::string script;                  // relative to the source folder
  std::vector<std::string> variables;  // those its --help must name
};

const std::vector<Example>& examples() {
  static const std::vector<Example> all = {
      {"examples/darknet/gpu.sh", {"MODELS", "VARIANTS", "PHASES", "BUDGETS", "ROUNDS", "OUT"}},
      {"examples/caffe_patch/gpu.sh", {"ROUNDS", "OUT"}}};
  return all;
}

std::string script_path(const Example& example) { return std::string(UCUDNN_SOURCE_DIR) + "/" + example.script; }

TEST(ExampleGpuScripts, HelpIsAUsageForAUserThatSaysWhatItNeedsAndWhereResultsGo) {
  for (const Example& example : examples()) {
    SCOPED_TRACE(example.script);
    for (const char* option : {"--help", "-h"}) {
      const Shell help = shell("bash " + script_path(example) + " " + option);
      EXPECT_EQ(help.status, 0) << help.output;
      EXPECT_EQ(help.output.rfind("usage: bash " + example.script + " pack ", 0), 0u) << help.output;
      EXPECT_TRUE(contains(help.output, "NVIDIA GPU")) << help.output;
      EXPECT_TRUE(contains(help.output, "where the results go")) << help.output;
      for (const std::string& variable : example.variables) {
        EXPECT_TRUE(contains(help.output, "\n  " + variable + " ")) << variable << " is not listed";
      }
      // The maintainers' words for their own machines, and the script's first line of code.
      for (const char* internal : {" lent ", "carry", "$OUT", "here:", "there:", "set -euo", "#"}) {
        EXPECT_FALSE(contains(help.output, internal)) << "'" << internal << "' in\n" << help.output;
      }
      for (const std::string& line : lines_of(help.output)) EXPECT_LE(line.size(), 100u) << line;
    }
  }
}

TEST(ExampleGpuScripts, AloneOrWithAnUnknownWordTheyAnswerInOneLine) {
  for (const Example& example : examples()) {
    SCOPED_TRACE(example.script);
    for (const char* words : {"", "fly"}) {
      const Shell run = shell("bash " + script_path(example) + " " + words);
      EXPECT_EQ(run.status, 2) << run.output;
      EXPECT_EQ(lines_of(run.output).size(), 1u) << run.output;
      EXPECT_TRUE(contains(run.output, "--help")) << run.output;
    }
  }
}

TEST(ExampleGpuScripts, RunWithoutAGpuSaysSoInOneLine) {
  TempDir dir;
  // An nvidia-smi that lists nothing, first on PATH: no GPU, whatever this machine has.
  const std::string stand_in = dir.write("nvidia-smi", "#!/bin/sh\nexit 9\n");
  ASSERT_EQ(chmod(stand_in.c_str(), 0755), 0);
  for (const Example& example : examples()) {
    SCOPED_TRACE(example.script);
    const Shell run = shell("cd '" + dir.path().string() + "' && PATH='" + dir.path().string() + "':\"$PATH\" OUT='" +
                            (dir.path() / "results").string() + "' bash " + script_path(example) + " run");
    EXPECT_EQ(run.status, 1) << run.output;
    ASSERT_EQ(lines_of(run.output).size(), 1u) << run.output;
    EXPECT_TRUE(contains(run.output, "no GPU found")) << run.output;
    EXPECT_FALSE(exists((dir.path() / "results").string())) << "it wrote results without a GPU";
  }
}

}  // namespace
}  // namespace ucudnn::testing
