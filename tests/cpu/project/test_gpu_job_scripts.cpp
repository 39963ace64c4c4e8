// The GPU jobs' scripts (bench/gpu/*.sh) remove a benchmark database with everything kept beside it
// through one helper: `rm -f DB*` met the claims folder a killed job member leaves ("Is a
// directory") and stopped `bash bench/gpu.sh baselines` after its first network under set -e.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "cli_test_support.h"
#include "test_helpers.h"

namespace ucudnn {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

TEST(GpuJobScripts, RemoveDatabaseTakesTheFilesAndFoldersBesideItUnderSetE) {
  TempDir dir;
  const std::string db = (dir.path() / "alexnet-float.db").string();
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) std::ofstream(db + suffix) << "x";
  fs::create_directories(db + ".claims");
  std::ofstream(db + ".claims/0123456789abcdef") << "left by a killed member";
  const std::string kept = dir.write("alexnet-float.db.txt", "a log beside it");
  const std::string script = std::string(UCUDNN_SOURCE_DIR) + "/bench/gpu/common.sh";
  // common.sh sets -e and moves to the repository's root, as every job does.
  const std::string command = "bash -c 'source \"" + script + "\" && remove_database \"" + db + "\" && echo done'";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char said[64] = {};
  const bool read = std::fgets(said, sizeof said, pipe) != nullptr;
  EXPECT_EQ(pclose(pipe), 0);
  EXPECT_TRUE(read && std::string(said) == "done\n") << said;
  for (const char* suffix : {"", "-journal", "-wal", "-shm", ".claims"}) {
    EXPECT_FALSE(fs::exists(db + suffix)) << db + suffix;
  }
  EXPECT_TRUE(fs::exists(kept)) << "only the database's own files";
}

TEST(GpuJobScripts, NoJobRemovesADatabaseByAGlobThatMeetsItsClaimsFolder) {
  const std::regex glob_removal(R"(rm -f[^\n]*\.db"?\*)");
  for (const auto& entry : fs::directory_iterator(std::string(UCUDNN_SOURCE_DIR) + "/bench/gpu")) {
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_FALSE(std::regex_search(text, glob_removal)) << entry.path() << ": use remove_database (common.sh)";
  }
}

}  // namespace
}  // namespace ucudnn
