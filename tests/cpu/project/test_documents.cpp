// The documents a user reads: every relative link leads to a file that exists, every #anchor to a
// heading of that file, the README's plan-query snippet is code that examples/consumer compiles,
// and the README stays a short guide whose first screen reaches the quick start.
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

// The README is a user guide, and its first screen reaches the quick start: at most 400 lines (detail
// goes to docs/), no cell of "Should I use it?" over 300 characters (a long cell wraps its row over
// a screen: cells of 400 to 711 pushed the quick start to line 48), and the quick start's commands
// within the first 40 rows of a 100-column terminal.
TEST(Documents, TheReadmeIsShortAndItsFirstScreenReachesTheQuickStart) {
  const std::vector<std::string> lines = ucudnn::testing::lines_of(read(kRoot / "README.md"));
  EXPECT_LE(lines.size(), 400u) << "README.md: move detail to docs/";
  bool table = false;
  int cells = 0;
  for (const std::string& line : lines) {
    if (line.rfind("## ", 0) == 0) table = line == "## Should I use it?";
    if (!table || line.rfind("|", 0) != 0 || line.rfind("|-", 0) == 0) continue;
    std::istringstream row(line.substr(1));
    for (std::string cell; std::getline(row, cell, '|');) {
      ++cells;
      EXPECT_LE(cell.size(), 300u) << "a cell of \"Should I use it?\": " << cell;
    }
  }
  EXPECT_GE(cells, 15) << "no \"Should I use it?\" table under its heading";
  std::size_t rows = 0;
  bool quick_start = false, fenced = false, shown = false;
  for (const std::string& line : lines) {
    rows += line.empty() ? 1 : (line.size() + 99) / 100;
    quick_start = quick_start || line == "## Quick start";
    if (!quick_start || line.rfind("```", 0) != 0) continue;
    if (fenced) {  // the end of the quick start's block of commands
      shown = true;
      break;
    }
    fenced = true;
  }
  ASSERT_TRUE(shown) << "no block of commands under '## Quick start'";
  EXPECT_LE(rows, 40u) << "the quick start's commands end on row " << rows << " at 100 columns";
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
