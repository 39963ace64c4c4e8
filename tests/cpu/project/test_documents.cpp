// The documents a user reads: every relative link leads to a file that exists, every #anchor to a
// heading of that file, and the README's plan-query snippet is code that examples/consumer compiles.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_helpers.h"

namespace {

namespace fs = std::filesystem;
const fs::path kRoot = UCUDNN_SOURCE_DIR;

std::string read(const fs::path& file) { return ucudnn::testing::read_bytes(file.string()); }

// The markdown files a user may open: the top level's, docs/, and the result and example notes.
std::vector<fs::path> documents() {
  std::vector<fs::path> files;
  for (const char* name : {"README.md", "ARCHITECTURE.md", "CHANGELOG.md"}) files.push_back(kRoot / name);
  for (const char* folder : {"docs", "bench", "examples", "tests"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / folder)) {
      if (entry.is_regular_file() && entry.path().extension() == ".md") files.push_back(entry.path());
    }
  }
  return files;
}

// GitHub's anchor for a heading: lower case, punctuation other than '-' and '_' dropped, spaces
// turned into '-'.
std::string anchor_of(const std::string& heading) {
  std::string anchor;
  for (unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_' || c >= 0x80) {
      anchor.push_back(static_cast<char>(std::tolower(c)));
    } else if (c == ' ') {
      anchor.push_back('-');
    }
  }
  return anchor;
}

std::set<std::string> anchors(const fs::path& file) {
  std::set<std::string> found;
  std::istringstream in(read(file));
  bool fenced = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) fenced = !fenced;
    if (fenced || line.empty() || line[0] != '#') continue;
    const std::size_t text = line.find_first_not_of('#');
    if (text == std::string::npos || line[text] != ' ') continue;
    found.insert(anchor_of(line.substr(text + 1)));
  }
  return found;
}

TEST(Documents, EveryRelativeLinkAndAnchorLeadsSomewhere) {
  const std::regex link(R"(\]\(([^)\s]+)\))");
  int checked = 0;
  for (const fs::path& file : documents()) {
    const std::string text = read(file);
    for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
      const std::string target = (*it)[1];
      if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0) continue;
      const std::size_t hash = target.find('#');
      const std::string path = target.substr(0, hash);
      const fs::path resolved = path.empty() ? file : file.parent_path() / path;
      SCOPED_TRACE(fs::relative(file, kRoot).string() + ": " + target);
      ++checked;
      ASSERT_TRUE(fs::exists(resolved)) << "no such file";
      if (hash != std::string::npos && resolved.extension() == ".md") {
        EXPECT_EQ(anchors(resolved).count(target.substr(hash + 1)), 1u) << "no such heading";
      }
    }
  }
  EXPECT_GT(checked, 50) << "the links were not found at all";
}

// A table row after a line of text starts a table only as its header (the separator row next):
// otherwise the row renders as text, as a paragraph inside a table did.
TEST(Documents, NoTableIsBrokenByALineOfText) {
  for (const fs::path& file : documents()) {
    std::vector<std::string> lines;
    std::istringstream in(read(file));
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    bool fenced = false;
    for (std::size_t i = 1; i < lines.size(); ++i) {
      if (lines[i].rfind("```", 0) == 0) fenced = !fenced;
      if (fenced || lines[i].rfind("|", 0) != 0) continue;
      const std::string& before = lines[i - 1];
      if (before.empty() || before.rfind("|", 0) == 0) continue;
      const bool header = i + 1 < lines.size() && lines[i + 1].rfind("|-", 0) == 0;
      EXPECT_TRUE(header) << fs::relative(file, kRoot).string() << ":" << i + 1
                          << ": a table row right after a line of text";
    }
  }
}

TEST(Documents, AnchorsAreMadeAsGitHubMakesThem) {
  EXPECT_EQ(anchor_of("Unmodified programs: `LD_PRELOAD`"), "unmodified-programs-ld_preload");
  EXPECT_EQ(anchor_of("Caffe, TensorFlow and JAX"), "caffe-tensorflow-and-jax");
  EXPECT_EQ(anchor_of("Workspace division (WD)"), "workspace-division-wd");
}

TEST(Documents, TheReadmesPlanQueryIsWhatTheConsumerExampleCompiles) {
  const std::string readme = read(kRoot / "README.md");
  const std::string consumer = read(kRoot / "examples" / "consumer" / "main.cpp");
  const std::size_t at = readme.find("ucudnnGetPlan(handle,");
  ASSERT_NE(at, std::string::npos) << "the README shows no call of ucudnnGetPlan";
  // The call, up to its semicolon, with its line breaks and indentation folded.
  auto folded = [](const std::string& text) {
    std::string out;
    for (char c : text) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        if (!out.empty() && out.back() != ' ') out.push_back(' ');
      } else {
        out.push_back(c);
      }
    }
    return out;
  };
  const std::string call = folded(readme.substr(at, readme.find(';', at) - at + 1));
  EXPECT_NE(folded(consumer).find(call), std::string::npos) << call;
}

}  // namespace
