// The binaries of the build tree: they search only the folders they name for their libraries (an
// empty RUNPATH entry means the working folder, where a planted libglpk.so.40 would run its code in
// `ucudnn --version`, and through the preload library in every program under `ucudnn run`); the
// `ucudnn` command needs neither cuDNN nor the CUDA runtime to start (`run` is for machines where
// the only cuDNN is a framework's), and `bench`, whose module does, says so in one line.

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_test_support.h"
#include "test_helpers.h"
#include "tools/bench_engine.h"

namespace ucudnn {
namespace {

// The lines of `readelf -d FILE` holding any of `tags` ("(RUNPATH)", "(NEEDED)").
std::string dynamic_lines(const std::string& file, const std::vector<std::string>& tags) {
  const std::string command = "readelf -d '" + file + "' 2>/dev/null";
  std::string text;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    std::array<char, 4096> buffer{};
    while (fgets(buffer.data(), buffer.size(), pipe)) {
      const std::string line = buffer.data();
      for (const std::string& tag : tags) {
        if (line.find(tag) != std::string::npos) text += line;
      }
    }
    pclose(pipe);
  }
  return text;
}

// The RUNPATH and RPATH entries of an ELF file, as readelf prints them ("[a:b:]").
std::string search_paths(const std::string& file) { return dynamic_lines(file, {"(RUNPATH)", "(RPATH)"}); }

TEST(BuildTree, BinariesNeverSearchTheWorkingFolderForLibraries) {
  for (const std::string file : {UCUDNN_CLI_PATH, UCUDNN_PRELOAD_LIBRARY_PATH, UCUDNN_LIBRARY_PATH}) {
    SCOPED_TRACE(file);
    const std::string paths = search_paths(file);
    for (const char* empty : {"[:", "::", ":]", "[]"}) {
      EXPECT_EQ(paths.find(empty), std::string::npos) << "an empty entry (the working folder): " << paths;
    }
    // Every entry absolute or $ORIGIN-based: a relative one is also read from the working folder.
    const auto open = paths.find('[');
    if (open == std::string::npos) continue;
    const std::string list = paths.substr(open + 1, paths.find(']') - open - 1);
    std::size_t start = 0;
    while (start <= list.size()) {
      const std::size_t end = std::min(list.find(':', start), list.size());
      const std::string entry = list.substr(start, end - start);
      EXPECT_TRUE(!entry.empty() && (entry[0] == '/' || entry.rfind("$ORIGIN", 0) == 0)) << "'" << entry << "'";
      start = end + 1;
    }
  }
}

TEST(BuildTree, TheCommandStartsWithoutCudnnOrTheCudaRuntime) {
  const std::string needed = dynamic_lines(UCUDNN_CLI_PATH, {"(NEEDED)"});
  ASSERT_NE(needed.find("libc.so"), std::string::npos) << "readelf gave nothing: " << needed;
  EXPECT_EQ(needed.find("libcudnn"), std::string::npos) << needed;
  EXPECT_EQ(needed.find("libcudart"), std::string::npos) << needed;
}

TEST(BuildTree, BenchSaysInOneLineWhereItsModuleCannotLoad) {
  // A copy of the command beside a bench module that needs a library no longer there.
  testing::TempDir dir;
  const std::filesystem::path bin = dir.path() / "bin";
  std::filesystem::create_directories(bin);
  std::filesystem::copy_file(UCUDNN_CLI_PATH, bin / "ucudnn");
  std::filesystem::permissions(bin / "ucudnn", std::filesystem::perms::owner_all);
  const std::string stub = dir.write("stub.c", "int stand_in_for_cudnn(void) { return 9; }\n");
  const std::string module = dir.write("module.c",
                                       "int stand_in_for_cudnn(void);\n"
                                       "int ucudnn_tools_bench_engine(void) { return stand_in_for_cudnn(); }\n");
  const std::string cc = UCUDNN_TEST_C_COMPILER;
  const std::string folder = dir.path().string();
  ASSERT_EQ(std::system(("'" + cc + "' -shared -fPIC -o '" + folder + "/libmissingcudnn.so' '" + stub + "'").c_str()),
            0);
  ASSERT_EQ(std::system(("'" + cc + "' -shared -fPIC -o '" + (bin / tools::kBenchModuleName).string() + "' '" + module +
                         "' -L'" + folder + "' -lmissingcudnn")
                            .c_str()),
            0);
  std::filesystem::remove(dir.path() / "libmissingcudnn.so");
  const std::string command = "'" + (bin / "ucudnn").string() + "' bench --network alexnet --database '" + folder +
                              "/b.db' >'" + folder + "/out' 2>'" + folder + "/err'";
  const int raw = std::system(command.c_str());
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 1) << raw;
  const std::string err = testing::read_bytes(folder + "/err");
  EXPECT_TRUE(testing::is_one_error_line(err)) << err;
  EXPECT_NE(err.find("`bench` needs cuDNN 9 and the CUDA runtime"), std::string::npos) << err;
  EXPECT_NE(err.find("libmissingcudnn.so"), std::string::npos) << err;
  // The other commands start all the same.
  const int version = std::system(("'" + (bin / "ucudnn").string() + "' --version >/dev/null").c_str());
  EXPECT_TRUE(WIFEXITED(version) && WEXITSTATUS(version) == 0) << version;
}

}  // namespace
}  // namespace ucudnn
