// examples/darknet's scripts without Darknet or a GPU: the YOLO configuration rewrite, the
// synthetic data, the summary of logs (ratios, failures), and the refusals of build.sh and
// hold_memory.py. The GPU runs themselves are in bench/results/h200/darknet.

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "test_helpers.h"

namespace ucudnn::testing {
namespace {

namespace fs = std::filesystem;

const std::string kExample = std::string(UCUDNN_SOURCE_DIR) + "/examples/darknet";

struct Shell {
  int status = -1;
  std::string output;  // stdout and stderr
};

Shell shell(const std::string& command) {
  Shell run;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return run;
  char buffer[4096];
  while (std::fgets(buffer, sizeof(buffer), pipe)) run.output += buffer;
  const int raw = pclose(pipe);
  run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return run;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class DarknetScripts : public ::testing::Test {
 protected:
  void SetUp() override {
    if (shell("command -v python3").status != 0) GTEST_SKIP() << "python3 is not installed (the scripts need it)";
  }
  TempDir dir;
};

// The value of KEY in the section starting at the Nth "[NAME]" line of a cfg (0-based).
std::string section_value(const std::string& cfg, const std::string& name, int n, const std::string& key) {
  int seen = -1;
  bool inside = false;
  for (const std::string& line : lines_of(cfg)) {
    if (!line.empty() && line[0] == '[') {
      inside = line == "[" + name + "]" && ++seen == n;
      continue;
    }
    if (inside && line.rfind(key + "=", 0) == 0) return line.substr(key.size() + 1);
  }
  return "";
}

TEST_F(DarknetScripts, MakeCfgRewritesClassesAndTheConvolutionBeforeEachYoloLayer) {
  const std::string source = dir.write("in.cfg",
                                       "[net]\n#batch=1\nbatch=1\nsubdivisions=1\nwidth=608\nheight=608\n"
                                       "learning_rate=0.01\nburn_in=1000\nmax_batches = 500500\n\n"
                                       "[convolutional]\nfilters=32\n\n[convolutional]\nfilters=255\n\n"
                                       "[yolo]\nmask = 0,1,2\nclasses=80\nnum=9\nrandom=1\n\n[route]\nlayers=-4\n\n"
                                       "[convolutional]\nfilters=255\n\n[yolo]\nmask=3,4\nclasses=80\nrandom=1\n");
  const std::string dest = (dir.path() / "out.cfg").string();
  const Shell run = shell("python3 " + kExample + "/make_cfg.py " + source + " " + dest +
                          " --classes 3 --batch 64 --subdivisions 8 --size 416 --max-batches 100");
  ASSERT_EQ(run.status, 0) << run.output;
  const std::string cfg = read_bytes(dest);
  EXPECT_EQ(section_value(cfg, "net", 0, "batch"), "64");
  EXPECT_EQ(section_value(cfg, "net", 0, "subdivisions"), "8");
  EXPECT_EQ(section_value(cfg, "net", 0, "width"), "416");
  EXPECT_EQ(section_value(cfg, "net", 0, "max_batches"), "100");
  EXPECT_EQ(section_value(cfg, "net", 0, "steps"), "80,90");
  EXPECT_EQ(section_value(cfg, "net", 0, "mosaic"), "0");
  EXPECT_TRUE(contains(cfg, "#batch=1")) << "comments stay as they were";
  EXPECT_EQ(section_value(cfg, "convolutional", 0, "filters"), "32") << "only the layer before [yolo] changes";
  EXPECT_EQ(section_value(cfg, "convolutional", 1, "filters"), "24");  // (3 + 5) x 3 anchors
  EXPECT_EQ(section_value(cfg, "convolutional", 2, "filters"), "16");  // (3 + 5) x 2 anchors
  for (int yolo : {0, 1}) {
    EXPECT_EQ(section_value(cfg, "yolo", yolo, "classes"), "3");
    EXPECT_EQ(section_value(cfg, "yolo", yolo, "random"), "0");
  }
}

TEST_F(DarknetScripts, MakeCfgRefusesFilesThatAreNotYoloDetectors) {
  const std::string dest = (dir.path() / "out.cfg").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[convolutional]\nfilters=8\n", "no [net] section"},
      {"[net]\nbatch=1\n[convolutional]\nfilters=8\n", "no [yolo] layer"},
      {"[net]\nbatch=1\n[convolutional]\nfilters=8\n[route]\nlayers=-1\n[yolo]\nmask=0\n", "does not follow"}};
  for (const auto& [text, message] : cases) {
    const std::string source = dir.write("bad.cfg", text);
    const Shell run = shell("python3 " + kExample + "/make_cfg.py " + source + " " + dest +
                            " --classes 3 --batch 64 --subdivisions 1");
    EXPECT_NE(run.status, 0) << text;
    EXPECT_TRUE(contains(run.output, message)) << run.output;
    EXPECT_EQ(lines_of(run.output).size(), 1u) << run.output;
  }
  const Shell odd = shell("python3 " + kExample + "/make_cfg.py x y --classes 3 --batch 64 --subdivisions 6");
  EXPECT_NE(odd.status, 0);
  EXPECT_TRUE(contains(odd.output, "not a multiple of --subdivisions")) << odd.output;
}

TEST_F(DarknetScripts, MakeDataWritesImagesWithLabelsInsideThem) {
  const fs::path out = dir.path() / "data";
  const Shell run =
      shell("python3 " + kExample + "/make_data.py " + out.string() + " --images 6 --size 64 --classes 3 --seed 7");
  ASSERT_EQ(run.status, 0) << run.output;
  const std::vector<std::string> images = lines_of(read_bytes((out / "train.txt").string()));
  ASSERT_EQ(images.size(), 6u);
  for (const std::string& image : images) {
    const std::string bytes = read_bytes(image);
    const std::string header = "P6 64 64 255\n";
    ASSERT_EQ(bytes.compare(0, header.size(), header), 0) << image;
    EXPECT_EQ(bytes.size(), header.size() + 64 * 64 * 3) << image;
    // Darknet reads the label beside the image: same name, .txt.
    const std::vector<std::string> labels = lines_of(read_bytes(image.substr(0, image.size() - 4) + ".txt"));
    ASSERT_FALSE(labels.empty()) << image;
    for (const std::string& label : labels) {
      std::istringstream in(label);
      int cls = -1;
      double cx = -1, cy = -1, w = -1, h = -1;
      ASSERT_TRUE(in >> cls >> cx >> cy >> w >> h) << label;
      EXPECT_TRUE(cls >= 0 && cls < 3) << label;
      EXPECT_TRUE(w > 0 && h > 0 && cx - w / 2 >= -1e-6 && cx + w / 2 <= 1 + 1e-6 && cy - h / 2 >= -1e-6 &&
                  cy + h / 2 <= 1 + 1e-6)
          << "box outside the image: " << label;
    }
  }
  EXPECT_TRUE(contains(read_bytes((out / "obj.data").string()), "classes=3"));
  EXPECT_EQ(lines_of(read_bytes((out / "obj.names").string())).size(), 3u);
  // The boxes come from the seed: the same seed, the same labels.
  const fs::path again = dir.path() / "again";
  ASSERT_EQ(shell("python3 " + kExample + "/make_data.py " + again.string() + " --images 6 --size 64 --seed 7").status,
            0);
  EXPECT_EQ(read_bytes((out / "images/00003.txt").string()), read_bytes((again / "images/00003.txt").string()));
}

// A training log as Darknet prints it: ITERATIONS lines of SECONDS each, 64 images per iteration.
std::string training_log(int iterations, double seconds) {
  std::string log = " Allocate additional workspace_size = 8.39 MB \n";
  for (int i = 1; i <= iterations; ++i) {
    log += "Loaded: 0.000100 seconds\n\n " + std::to_string(i) + ": 3.5, 4.25 avg loss, 0.001000 rate, " +
           std::to_string(i <= 5 ? 1.0 : seconds) + " seconds, " + std::to_string(64 * i) +
           " images, 0.01 hours left\n";
  }
  return log;
}

TEST_F(DarknetScripts, SummaryGivesRatiosToPlainAndMarksWhereARunFailed) {
  const fs::path root = dir.path() / "results";
  fs::create_directories(root / "train" / "net");
  const auto log = [&](const std::string& name, const std::string& text, const std::string& peak) {
    write_bytes((root / "train" / "net" / name).string(), text);
    write_bytes((root / "train" / "net" / (name + ".mem")).string(), peak + "\n");
  };
  write_bytes((root / "gpu.txt").string(), "name, driver\nTest GPU, 1\n");
  log("none-plain-r1.log", training_log(10, 0.2), "900");        // 320 images/s (the first 5 left out)
  log("none-ucudnn-8MiB-r1.log", training_log(10, 0.1), "800");  // 640
  log("100MiB-plain-r1.log", "CUDA Error: out of memory\n", "90");
  log("100MiB-ucudnn-8MiB-r1.log", training_log(10, 0.25), "95");  // 256
  const Shell run = shell("python3 " + kExample + "/summarize.py " + root.string());
  ASSERT_EQ(run.status, 0) << run.output;
  const std::string table = read_bytes((root / "darknet-summary.md").string());
  EXPECT_TRUE(contains(table, "| plenty | 320.0 | 640.0 | 2.00 | 900, 800 |")) << table;
  EXPECT_TRUE(contains(table, "| 100MiB | failed | 256.0 | plain failed | 90, 95 |")) << table;
  EXPECT_TRUE(contains(read_bytes((root / "darknet-summary.json").string()), "CUDA Error: out of memory"));
  EXPECT_TRUE(contains(read_bytes((root / "darknet-slope.svg").string()), "<polyline"));
}

TEST_F(DarknetScripts, BuildScriptAndMemoryHolderRefuseWhatTheyCannotUse) {
  const Shell not_darknet = shell("bash " + kExample + "/build.sh " + dir.path().string() + " --check");
  EXPECT_EQ(not_darknet.status, 1);
  EXPECT_TRUE(contains(not_darknet.output, "is not AlexeyAB's Darknet")) << not_darknet.output;
  const Shell bad_arch = shell("bash " + kExample + "/build.sh " + dir.path().string() + " --arch 9.0");
  EXPECT_EQ(bad_arch.status, 2);
  EXPECT_TRUE(contains(bad_arch.output, "--arch takes a compute capability")) << bad_arch.output;
  // The size is read before any CUDA library is loaded, so this runs without one.
  const Shell bad_size = shell("python3 " + kExample + "/hold_memory.py '12 apples'");
  EXPECT_EQ(bad_size.status, 2);
  EXPECT_TRUE(contains(bad_size.output, "is not a size")) << bad_size.output;
}

}  // namespace
}  // namespace ucudnn::testing
