// The README's block of `ucudnn` commands pastes as it stands: no option syntax ([--x], a|b) that a
// shell would run, and every line that needs no GPU or program of the user's runs and succeeds,
// in order, from a folder laid out as the source tree (tests/data/ where the lines read it).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.h"

namespace ucudnn {
namespace {

namespace fs = std::filesystem;
using testing::run;
using testing::TempDir;

// The command lines of the README's block under "## The `ucudnn` command", continuations joined
// and comments dropped, each split into words as a shell would (double quotes only).
std::vector<std::vector<std::string>> readme_commands() {
  std::ifstream in(fs::path(UCUDNN_SOURCE_DIR) / "README.md");
  std::vector<std::vector<std::string>> commands;
  bool section = false, block = false;
  std::string pending;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) section = line == "## The `ucudnn` command";
    if (!section) continue;
    if (line.rfind("```", 0) == 0) {
      if (block) break;
      block = true;
      continue;
    }
    if (!block) continue;
    if (!line.empty() && line.back() == '\\') {
      pending += line.substr(0, line.size() - 1) + " ";
      continue;
    }
    line = pending + line;
    pending.clear();
    std::vector<std::string> words;
    std::string word;
    bool quoted = false, has_word = false;
    for (char c : line) {
      if (c == '"') {
        quoted = !quoted;
        has_word = true;
      } else if (!quoted && c == '#' && !has_word) {
        break;  // a comment
      } else if (!quoted && (c == ' ' || c == '\t')) {
        if (has_word) words.push_back(word);
        word.clear();
        has_word = false;
      } else {
        word.push_back(c);
        has_word = true;
      }
    }
    if (has_word) words.push_back(word);
    if (!words.empty()) commands.push_back(words);
  }
  return commands;
}

TEST(ReadmeCommands, NoLineHoldsOptionSyntaxAShellWouldRun) {
  const auto commands = readme_commands();
  ASSERT_GE(commands.size(), 10u) << "the README's command block was not found";
  for (const auto& words : commands) {
    for (const std::string& word : words) {
      EXPECT_EQ(word.find_first_of("[]|<>"), std::string::npos) << word;
    }
  }
}

TEST(ReadmeCommands, TheLinesThatNeedNoGpuRunAndSucceedInOrder) {
  TempDir dir;
  fs::create_directories(dir.path() / "tests");
  fs::create_directory_symlink(fs::path(UCUDNN_SOURCE_DIR) / "tests" / "data", dir.path() / "tests" / "data");
  const fs::path before = fs::current_path();
  fs::current_path(dir.path());
  int ran = 0;
  for (const auto& words : readme_commands()) {
    ASSERT_EQ(words.front(), "ucudnn");
    if (words.size() > 1 && (words[1] == "run" || words[1] == "bench")) continue;  // a program, a GPU
    const std::vector<std::string> args(words.begin() + 1, words.end());
    const testing::CliResult result = run(args);
    std::string line;
    for (const std::string& word : words) line += word + " ";
    EXPECT_EQ(result.status, 0) << line << "\n" << result.err;
    ++ran;
  }
  fs::current_path(before);
  EXPECT_GE(ran, 9);
}

}  // namespace
}  // namespace ucudnn
