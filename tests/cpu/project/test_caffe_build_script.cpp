// examples/caffe_patch/build.sh without Caffe or a GPU: its arguments, the checks of the checkout and
// of the toolkit, and the patches. The Caffe tree is made of the lines the patches' hunks expect
// (their context and removed lines), so the real patches apply to it; CUDA is a stand-in nvcc and
// cudnn_version.h. Every run stops before Debian packages and the build (--check, --patch-only, or
// an error found first).

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "test_helpers.h"

namespace ucudnn::testing {
namespace {

namespace fs = std::filesystem;

const std::string kExample = std::string(UCUDNN_SOURCE_DIR) + "/examples/caffe_patch";

bool have(const std::string& command) {
  return std::system(("command -v " + command + " > /dev/null 2>&1").c_str()) == 0;
}

int shell(const std::string& command) {
  const int raw = std::system(command.c_str());
  return raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

std::string quoted(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

size_t line_count(const std::string& text) { return static_cast<size_t>(std::count(text.begin(), text.end(), '\n')); }

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Per file, the lines each hunk of a unified diff expects, in the order of their line numbers.
void add_preimages(const std::string& patch, std::map<std::string, std::vector<std::pair<int, std::string>>>& files) {
  std::istringstream in(read_bytes(kExample + "/" + patch));
  std::string line, file;
  std::pair<int, std::string>* hunk = nullptr;
  const std::regex header(R"(^@@ -(\d+)(,\d+)? \+\d+(,\d+)? @@.*)");
  std::smatch match;
  while (std::getline(in, line)) {
    if (line.rfind("+++ b/", 0) == 0) {
      file = line.substr(6);
      hunk = nullptr;
    } else if (std::regex_match(line, match, header)) {
      files[file].emplace_back(std::stoi(match[1]), "");
      hunk = &files[file].back();
    } else if (hunk != nullptr && !line.empty() && (line[0] == ' ' || line[0] == '-')) {
      hunk->second += line.substr(1) + "\n";
    } else if (hunk != nullptr && (line.empty() || line[0] != '+')) {
      hunk = nullptr;  // the next file's header
    }
  }
}

// A Caffe tree that cuda13.patch and ucudnn.patch apply to, each alone or one on the other.
void make_caffe_tree(const fs::path& root, const std::string& version = "1.0.0") {
  std::map<std::string, std::vector<std::pair<int, std::string>>> files;
  add_preimages("cuda13.patch", files);
  add_preimages("ucudnn.patch", files);
  for (auto& [name, hunks] : files) {
    std::sort(hunks.begin(), hunks.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string text;
    for (const auto& hunk : hunks) text += hunk.second + "// between hunks\n";
    fs::create_directories((root / name).parent_path());
    write_bytes((root / name).string(), text);
  }
  write_bytes((root / "CMakeLists.txt").string(), "cmake_minimum_required(VERSION 2.8.7)\nproject(Caffe C CXX)\n"
                                                  "set(CAFFE_TARGET_VERSION \"" + version + "\" CACHE STRING \"Caffe logical version\")\n");
}

// A CUDA toolkit stand-in: nvcc --version names `release`; cudnn_version.h says `cudnn_major`.
std::string make_cuda(const fs::path& root, const std::string& release, int cudnn_major) {
  fs::create_directories(root / "bin");
  fs::create_directories(root / "include");
  const std::string nvcc = (root / "bin" / "nvcc").string();
  write_bytes(nvcc, "#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\n"
                    "echo 'Cuda compilation tools, release " + release + ", V" + release + ".76'\n");
  ::chmod(nvcc.c_str(), 0755);
  write_bytes((root / "include" / "cudnn_version.h").string(),
              "#define CUDNN_MAJOR " + std::to_string(cudnn_major) + "\n#define CUDNN_MINOR 2\n");
  return root.string();
}

// Every file under `root` (outside .git) with its bytes.
std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string relative = fs::relative(entry.path(), root).string();
    if (relative.rfind(".git", 0) == 0 || !entry.is_regular_file()) continue;
    files[relative] = read_bytes(entry.path().string());
  }
  return files;
}

struct ScriptRun {
  int status = -1;
  std::string out;
  std::string err;
};

class CaffeBuildScript : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have("patch")) GTEST_SKIP() << "needs the patch command";
    caffe_ = dir_.path() / "caffe";
    make_caffe_tree(caffe_);
    cuda13_ = make_cuda(dir_.path() / "cuda13", "13.0", 9);
  }

  // build.sh ARGS with CUDA_HOME=cuda_home; the Caffe tree is the first argument unless `args`
  // starts with '!' (then `args` are all the arguments).
  ScriptRun run(const std::vector<std::string>& args, const std::string& cuda_home = "") const {
    std::string command = "CUDA_HOME=" + quoted(cuda_home.empty() ? cuda13_ : cuda_home) + " bash " +
                          quoted(kExample + "/build.sh");
    for (const auto& arg : args) command += " " + quoted(arg);
    const fs::path out = dir_.path() / "out.txt", err = dir_.path() / "err.txt";
    command += " > " + quoted(out.string()) + " 2> " + quoted(err.string());
    ScriptRun result;
    result.status = shell(command);
    result.out = read_bytes(out.string());
    result.err = read_bytes(err.string());
    return result;
  }

  std::string caffe() const { return caffe_.string(); }
  std::string read(const std::string& name) const { return read_bytes((caffe_ / name).string()); }

  TempDir dir_;
  fs::path caffe_;
  std::string cuda13_;
};

// The options a text lists, one a line: "  --jobs N   ...", "  -h, --help   ...".
std::vector<std::string> described_options(const std::string& help) {
  std::istringstream in(help);
  const std::regex item(R"(^  (-[-a-z]+)(, (-[-a-z]+))?( [A-Z]+)?  .*)");
  std::vector<std::string> options;
  std::string line;
  std::smatch match;
  while (std::getline(in, line)) {
    if (!std::regex_match(line, match, item)) continue;
    options.push_back(match[1]);
    if (match[3].matched) options.push_back(match[3]);
  }
  return options;
}

TEST_F(CaffeBuildScript, HelpDescribesEveryOptionTheScriptAccepts) {
  const ScriptRun help = run({"--help"});
  EXPECT_EQ(help.status, 0) << help.err;
  const std::vector<std::string> described = described_options(help.out);
  // The options accepted are the words of the argument loop's case patterns ("    --arch) ...").
  std::istringstream script(read_bytes(kExample + "/build.sh"));
  const std::regex pattern(R"(^ +(-[-a-z]+(=\*)?( \| -[-a-z]+(=\*)?)*)\).*)");
  const std::regex option(R"(-[-a-z]+)");
  std::string line;
  std::smatch match;
  int accepted = 0;
  while (std::getline(script, line)) {
    if (!std::regex_match(line, match, pattern)) continue;
    const std::string patterns = match[1];
    for (std::sregex_iterator it(patterns.begin(), patterns.end(), option), end; it != end; ++it) {
      ++accepted;
      EXPECT_NE(std::find(described.begin(), described.end(), it->str()), described.end())
          << it->str() << " is not described by --help:\n" << help.out;
    }
  }
  EXPECT_GE(accepted, 8) << "the argument loop's options were not found in build.sh";
}

TEST_F(CaffeBuildScript, ArgumentErrorsAreOneLineAndExitTwo) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "CAFFE_DIR is missing"},
      {{caffe(), "--frobnicate"}, "unknown option '--frobnicate'"},
      {{caffe(), "--arch"}, "--arch needs a value"},
      {{caffe(), "--ucudnn-prefix"}, "--ucudnn-prefix needs a value"},
      {{caffe(), "--arch", "9.0"}, "not '9.0'"},
      {{caffe(), "--jobs=0"}, "--jobs takes a positive number, not '0'"},
      {{caffe(), caffe()}, "one CAFFE_DIR only"},
      {{caffe(), "--check", "--patch-only"}, "exclude each other"},
      {{caffe(), "--with-ucudnn=yes"}, "unknown option '--with-ucudnn=yes'"},
  };
  const auto before = snapshot(caffe_);
  for (const auto& [args, detail] : cases) {
    SCOPED_TRACE(detail);
    const ScriptRun result = run(args);
    EXPECT_EQ(result.status, 2);
    EXPECT_EQ(line_count(result.err), 1u) << result.err;
    EXPECT_EQ(result.err.rfind("build.sh: ", 0), 0u) << result.err;
    EXPECT_TRUE(contains(result.err, detail)) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;
  }
  EXPECT_EQ(snapshot(caffe_), before);
}

TEST_F(CaffeBuildScript, WarnsAboutAForkOfCaffeAndGoesOn) {
  if (!have("git")) GTEST_SKIP() << "needs git";
  const std::string git = "git -C " + quoted(caffe()) + " -c user.name=test -c user.email=test@example.com ";
  ASSERT_EQ(shell(git + "init -q && " + git + "add -A && " + git + "commit -qm 'a fork of Caffe 1.0'"), 0);
  ASSERT_EQ(shell(git + "rev-parse --short=12 HEAD > " + quoted((dir_.path() / "head.txt").string())), 0);
  std::string head = read_bytes((dir_.path() / "head.txt").string());
  head.erase(head.find_last_not_of('\n') + 1);
  const auto before = snapshot(caffe_);

  const ScriptRun check = run({caffe(), "--check", "--with-ucudnn"});
  EXPECT_EQ(check.status, 0) << check.err;
  EXPECT_EQ(line_count(check.err), 1u) << check.err;
  EXPECT_TRUE(contains(check.err, "warning: '" + fs::canonical(caffe_).string() + "' is at commit " + head)) << check.err;
  EXPECT_TRUE(contains(check.err, "not Caffe 1.0 (eeebdab16155)")) << check.err;
  EXPECT_TRUE(contains(check.out, "would apply cuda13.patch ucudnn.patch")) << check.out;
  EXPECT_EQ(snapshot(caffe_), before) << "--check changed the checkout";
}

TEST_F(CaffeBuildScript, WarnsAboutAnotherVersionOutsideGit) {
  make_caffe_tree(caffe_, "0.17.3");
  const ScriptRun check = run({caffe(), "--check"});
  EXPECT_EQ(check.status, 0) << check.err;
  EXPECT_EQ(line_count(check.err), 1u) << check.err;
  EXPECT_TRUE(contains(check.err, "is Caffe version 0.17.3, not 1.0.0")) << check.err;
}

TEST_F(CaffeBuildScript, RefusesCudaOtherThan12Or13) {
  for (const std::string release : {"11.8", "14.0"}) {
    SCOPED_TRACE(release);
    const ScriptRun result = run({caffe(), "--check"}, make_cuda(dir_.path() / ("cuda" + release), release, 9));
    EXPECT_EQ(result.status, 1);
    EXPECT_EQ(line_count(result.err), 1u) << result.err;
    EXPECT_TRUE(contains(result.err, "is CUDA " + release + "; supported: CUDA 12 and 13")) << result.err;
  }
}

TEST_F(CaffeBuildScript, UcudnnNeedsCudnn9WhilePlainCaffeTakesCudnn8) {
  const std::string cuda12_cudnn8 = make_cuda(dir_.path() / "cuda12", "12.4", 8);
  const ScriptRun with_ucudnn = run({caffe(), "--check", "--with-ucudnn"}, cuda12_cudnn8);
  EXPECT_EQ(with_ucudnn.status, 1);
  EXPECT_TRUE(contains(with_ucudnn.err, "is cuDNN 8; ucudnn needs cuDNN 9")) << with_ucudnn.err;
  const ScriptRun plain = run({caffe(), "--check"}, cuda12_cudnn8);
  EXPECT_EQ(plain.status, 0) << plain.err;
  EXPECT_TRUE(contains(plain.out, "(CUDA 12.4, cuDNN 8): would apply cuda13.patch cuda12.patch")) << plain.out;
}

TEST_F(CaffeBuildScript, Cuda12AddsCuda12PatchAndCuda13TakesItOut) {
  const std::string cuda12 = make_cuda(dir_.path() / "cuda12", "12.4", 9);
  const ScriptRun on12 = run({caffe(), "--patch-only"}, cuda12);
  ASSERT_EQ(on12.status, 0) << on12.err;
  EXPECT_EQ(on12.out, "build.sh: applied cuda13.patch\nbuild.sh: applied cuda12.patch\n");
  EXPECT_TRUE(contains(read("cmake/Cuda.cmake"), "\"50 52 60 61 70 75 80 86 89 90\")  # what every CUDA 12 builds"));
  EXPECT_TRUE(contains(read("src/caffe/layers/cudnn_conv_layer.cpp"), "cudnnGetConvolutionForwardAlgorithm_v7"));

  const ScriptRun on13 = run({caffe(), "--patch-only"});
  ASSERT_EQ(on13.status, 0) << on13.err;
  EXPECT_EQ(on13.out, "build.sh: took cuda12.patch back out\n");
  EXPECT_TRUE(contains(read("cmake/Cuda.cmake"), "\"75 80 86 89 90 100 120\")  # what CUDA 13 builds"));

  const ScriptRun again = run({caffe(), "--patch-only"});
  EXPECT_EQ(again.out, "build.sh: the patches were applied already\n");
}

TEST_F(CaffeBuildScript, SwitchesUcudnnPatchInAndOut) {
  ASSERT_EQ(run({caffe(), "--patch-only"}).status, 0);
  const auto plain = snapshot(caffe_);
  const ScriptRun with = run({caffe(), "--patch-only", "--with-ucudnn"});
  ASSERT_EQ(with.status, 0) << with.err;
  EXPECT_EQ(with.out, "build.sh: applied ucudnn.patch\n");
  EXPECT_TRUE(contains(read("src/caffe/net.cpp"), "ucudnnOptimize"));
  EXPECT_TRUE(contains(read("cmake/Cuda.cmake"), "find_package(ucudnn REQUIRED CONFIG)"));
  const ScriptRun without = run({caffe(), "--patch-only"});
  ASSERT_EQ(without.status, 0) << without.err;
  EXPECT_EQ(without.out, "build.sh: took ucudnn.patch back out\n");
  EXPECT_EQ(snapshot(caffe_), plain) << "taking ucudnn.patch out left more than cuda13.patch";
}

TEST_F(CaffeBuildScript, APatchThatDoesNotApplyNamesItsFilesAndChangesNothing) {
  // net.cpp is ucudnn.patch's alone: cuda13.patch, which applies, must not be applied either.
  std::string net = read("src/caffe/net.cpp");
  net.replace(net.find("#include \"caffe/parallel.hpp\""), 29, "#include \"caffe/parallel_v2.hpp\"");
  write_bytes((caffe_ / "src/caffe/net.cpp").string(), net);
  const auto before = snapshot(caffe_);
  const ScriptRun result = run({caffe(), "--patch-only", "--with-ucudnn"});
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(line_count(result.err), 1u) << result.err;
  EXPECT_TRUE(contains(result.err, "ucudnn.patch does not apply to")) << result.err;
  EXPECT_TRUE(contains(result.err, "(rejected: src/caffe/net.cpp); the checkout is unchanged")) << result.err;
  EXPECT_EQ(snapshot(caffe_), before) << "the checkout changed (or .orig/.rej files appeared)";

  fs::remove(caffe_ / "src/caffe/layers/cudnn_softmax_layer.cpp");
  const ScriptRun missing = run({caffe(), "--check"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_TRUE(contains(missing.err, "cuda13.patch does not apply")) << missing.err;
  EXPECT_TRUE(contains(missing.err, "src/caffe/layers/cudnn_softmax_layer.cpp (missing)")) << missing.err;
}

TEST_F(CaffeBuildScript, UcudnnPrefixMustHoldAnInstalledUcudnn) {
  const fs::path prefix = dir_.path() / "prefix";
  fs::create_directories(prefix / "lib" / "cmake");
  const ScriptRun empty = run({caffe(), "--check", "--ucudnn-prefix", prefix.string()});
  EXPECT_EQ(empty.status, 1);
  EXPECT_EQ(line_count(empty.err), 1u) << empty.err;
  EXPECT_TRUE(contains(empty.err, "no ucudnn installed in '" + prefix.string() + "'")) << empty.err;

  fs::create_directories(prefix / "lib" / "cmake" / "ucudnn");
  write_bytes((prefix / "lib" / "cmake" / "ucudnn" / "ucudnnConfig.cmake").string(), "# installed\n");
  const ScriptRun installed = run({caffe(), "--check", "--ucudnn-prefix=" + prefix.string()});
  EXPECT_EQ(installed.status, 0) << installed.err;
  EXPECT_TRUE(contains(installed.out, "would apply cuda13.patch ucudnn.patch")) << "it implies --with-ucudnn: "
                                                                                 << installed.out;
}

}  // namespace
}  // namespace ucudnn::testing
