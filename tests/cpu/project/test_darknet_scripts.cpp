// examples/darknet's scripts without Darknet or a GPU: the YOLO configuration rewrite, the
// synthetic data, the summary of logs (ratios, failures, odd names, zero times), and the refusals of
// build.sh and of bad arguments. The GPU runs themselves are in bench/results/h200/darknet.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "shell_run.h"
#include "test_helpers.h"

namespace ucudnn::testing {
namespace {

namespace fs = std::filesystem;

const std::string kExample = std::string(UCUDNN_SOURCE_DIR) + "/examples/darknet";

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

// A bad argument is refused before anything is written: status 2 (a usage error), one line (gpu.sh's
// log shows it whole) that names the argument, and no Python traceback.
void expect_refused(const Shell& run, const std::string& argument, const std::string& unwritten) {
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_EQ(lines_of(run.output).size(), 1u) << run.output;
  EXPECT_TRUE(contains(run.output, argument)) << run.output;
  EXPECT_FALSE(contains(run.output, "Traceback")) << run.output;
  EXPECT_FALSE(exists(unwritten)) << unwritten << " was written";
}

const char kSmallYolo[] = "[net]\nbatch=1\n[convolutional]\nfilters=8\n[yolo]\nmask=0\n";

TEST_F(DarknetScripts, MakeCfgRefusesZeroSubdivisions) {
  // Darknet divides the batch by it; the check that it divides the batch divided by zero too.
  const std::string source = dir.write("in.cfg", kSmallYolo);
  const std::string dest = (dir.path() / "out.cfg").string();
  expect_refused(
      shell("python3 " + kExample + "/make_cfg.py " + source + " " + dest + " --classes 3 --batch 64 --subdivisions 0"),
      "argument --subdivisions", dest);
}

TEST_F(DarknetScripts, MakeCfgRefusesCountsAndSchedulesOutOfRange) {
  const std::string source = dir.write("in.cfg", kSmallYolo);
  const std::string dest = (dir.path() / "out.cfg").string();
  // Each would be written as it is, and Darknet would train on nothing or read it as nonsense.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--batch 0", "--batch"},
      {"--batch -64", "--batch"},
      {"--batch 4294967360", "--batch"},  // past a C int
      {"--subdivisions -8", "--subdivisions"},
      {"--classes 0", "--classes"},
      {"--classes -3", "--classes"},
      {"--max-batches 0", "--max-batches"},
      {"--max-batches 1", "--max-batches"},  // its steps at 80% and 90% would be 0
      {"--burn-in -1", "--burn-in"},
      {"--size 0", "--size"}};
  for (const auto& [option, argument] : cases) {
    SCOPED_TRACE(option);
    fs::remove(dest);  // each case on its own: none may write it
    const std::string options = " --classes 3 --batch 64 --subdivisions 1 " + option;  // argparse keeps the last
    expect_refused(shell("python3 " + kExample + "/make_cfg.py " + source + " " + dest + options),
                   "argument " + argument, dest);
  }
}

TEST_F(DarknetScripts, MakeCfgRefusesALearningRateThatIsNotAFiniteNumberAboveZero) {
  const std::string source = dir.write("in.cfg", kSmallYolo);
  const std::string dest = (dir.path() / "out.cfg").string();
  // NaN or inf makes every weight NaN at the first update; zero or less learns nothing.
  for (const char* rate : {"nan", "inf", "0", "-0.001"}) {
    SCOPED_TRACE(rate);
    fs::remove(dest);
    expect_refused(shell("python3 " + kExample + "/make_cfg.py " + source + " " + dest +
                         " --classes 3 --batch 64 --subdivisions 1 --learning-rate=" + rate),
                   "argument --learning-rate", dest);
  }
}

TEST_F(DarknetScripts, MakeCfgRefusesADestinationInAFolderThatDoesNotExist) {
  const std::string source = dir.write("in.cfg", kSmallYolo);
  const std::string dest = (dir.path() / "missing" / "out.cfg").string();
  const Shell run =
      shell("python3 " + kExample + "/make_cfg.py " + source + " " + dest + " --classes 3 --batch 64 --subdivisions 1");
  expect_refused(run, "argument dest", dest);
  EXPECT_TRUE(contains(run.output, (dir.path() / "missing").string())) << "the folder is named: " << run.output;
}

TEST_F(DarknetScripts, MakeDataRefusesBadArgumentsNamingEachOne) {
  const std::string out = (dir.path() / "data").string();
  const std::string file = dir.write("a-file", "");
  // One line for the argument at fault: the old message named --images and --size at once.
  const std::vector<std::pair<std::string, std::string>> cases = {{out + " --images 0", "--images"},
                                                                  {out + " --size 31", "--size"},
                                                                  {out + " --classes 7", "--classes"},
                                                                  {file + " --images 1", "argument out"}};
  for (const auto& [arguments, argument] : cases) {
    SCOPED_TRACE(arguments);
    fs::remove_all(out);
    expect_refused(shell("python3 " + kExample + "/make_data.py " + arguments), argument, out);
  }
}

TEST_F(DarknetScripts, MemoryHolderRefusesBadArgumentsBeforeTakingMemory) {
  // Checked before the CUDA runtime is loaded: refused alike with a GPU or without one, and a GPU's
  // memory is never held for a --ready file that cannot be written.
  const std::string ready = (dir.path() / "missing" / "ready").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1GiB --device -1", "argument --device"},
      {"1GiB --ready " + ready, "argument --ready"},
      {"1" + std::string(400, '0') + "GiB", "argument leave"}};  // past a float: inf
  for (const auto& [arguments, argument] : cases) {
    SCOPED_TRACE(arguments.substr(0, 40));
    expect_refused(shell("python3 " + kExample + "/hold_memory.py " + arguments), argument, ready);
  }
}

TEST_F(DarknetScripts, SummarySkipsARoundWhoseNameDoesNotParseWithANote) {
  const fs::path root = dir.path() / "results";
  fs::create_directories(root / "train" / "net");
  fs::create_directories(root / "infer" / "net");
  write_bytes((root / "train" / "net" / "none-plain-r1.log").string(), training_log(10, 0.2));
  // A budget the name pattern lets through but no number: the summary must not be lost for it.
  const std::string odd = (root / "train" / "net" / "1.2.3MiB-plain-r1.log").string();
  write_bytes(odd, training_log(10, 0.2));
  // stdout (the table) aside: stderr alone.
  const Shell run = shell("(python3 " + kExample + "/summarize.py " + root.string() + " 2>&1 > /dev/null)");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_EQ(lines_of(run.output).size(), 1u) << run.output;
  EXPECT_TRUE(contains(run.output, odd)) << run.output;
  EXPECT_FALSE(contains(run.output, "Traceback")) << run.output;
  const std::string table = read_bytes((root / "darknet-summary.md").string());
  EXPECT_TRUE(contains(table, "| plenty | 320.0 |")) << table;
  EXPECT_FALSE(contains(table, "1.2.3MiB")) << table;
}

TEST_F(DarknetScripts, SummaryGivesNaWhereTimesAreZero) {
  // Training and inference apart: each divided by its median time.
  const fs::path train = dir.path() / "train-results";
  fs::create_directories(train / "train" / "net");
  write_bytes((train / "train" / "net" / "none-plain-r1.log").string(), training_log(10, 0.0));
  write_bytes((train / "train" / "net" / "none-ucudnn-r1.log").string(), training_log(10, 0.1));
  const fs::path infer = dir.path() / "infer-results";
  fs::create_directories(infer / "infer" / "net");
  std::string predicted;
  for (int i = 0; i < 30; ++i) predicted += "image: Predicted in 0.000000 milli-seconds.\n";
  write_bytes((infer / "infer" / "net" / "plain-r1.log").string(), predicted);
  for (const fs::path& root : {train, infer}) {
    SCOPED_TRACE(root.string());
    const Shell run = shell("(python3 " + kExample + "/summarize.py " + root.string() + " 2>&1 > /dev/null)");
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_EQ(run.output, "") << "nothing on stderr";
  }
  const std::string trained = read_bytes((train / "darknet-summary.md").string());
  EXPECT_TRUE(contains(trained, "| plenty | n/a | 640.0 | n/a |")) << "n/a, not failed: " << trained;
  const std::string inferred = read_bytes((infer / "darknet-summary.md").string());
  EXPECT_TRUE(contains(inferred, "| net | n/a |")) << inferred;
}

}  // namespace
}  // namespace ucudnn::testing
