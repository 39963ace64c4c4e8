// examples/caffe_patch/models/generate.py: the timing networks it writes are the ones in the
// repository, and --help or a stray argument writes nothing.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "test_helpers.h"

namespace ucudnn::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kModels = fs::path(UCUDNN_SOURCE_DIR) / "examples/caffe_patch/models";

// The exit status of `python3 SCRIPT ARGS` with its output in `output` (-1: it did not exit).
int run_generator(const fs::path& script, const std::string& args, const fs::path& output) {
  const int raw =
      std::system(("python3 '" + script.string() + "' " + args + " > '" + output.string() + "' 2>&1").c_str());
  return raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

class CaffeModels : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("command -v python3 > /dev/null 2>&1") != 0) GTEST_SKIP() << "no python3 here";
    // A copy, so that the script writes beside itself in a folder of the test's own.
    fs::copy_file(kModels / "generate.py", dir_.path() / "generate.py");
  }
  TempDir dir_;
};

TEST_F(CaffeModels, HelpAndAStrayArgumentWriteNothing) {
  const fs::path out = dir_.path() / "out.txt";
  EXPECT_EQ(run_generator(dir_.path() / "generate.py", "--help", out), 0);
  EXPECT_NE(read_bytes(out.string()).find("Rewrites alexnet.prototxt"), std::string::npos) << read_bytes(out.string());
  EXPECT_EQ(run_generator(dir_.path() / "generate.py", "--bogus", out), 2);
  EXPECT_NE(read_bytes(out.string()).find("unrecognized arguments: --bogus"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_.path() / "alexnet.prototxt"));
  EXPECT_FALSE(fs::exists(dir_.path() / "resnet50.prototxt"));
}

TEST_F(CaffeModels, TheGeneratorWritesTheNetworksInTheRepository) {
  ASSERT_EQ(run_generator(dir_.path() / "generate.py", "", dir_.path() / "out.txt"), 0);
  for (const char* name : {"alexnet.prototxt", "resnet50.prototxt"}) {
    EXPECT_EQ(read_bytes((dir_.path() / name).string()), read_bytes((kModels / name).string())) << name;
  }
}

}  // namespace
}  // namespace ucudnn::testing
