// The one declaration of every setting (core/env_config.h: setting_rows) and what is made of it or
// must agree with it: the README's settings table (every variable, with the same default) and
// `ucudnn --help`'s settings list.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/env_config.h"
#include "test_helpers.h"
#include "tools/cli.h"

namespace {

namespace fs = std::filesystem;
using ucudnn::setting_rows;
using ucudnn::SettingRow;

std::string without_backticks(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), '`'), text.end());
  return text;
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(' ');
  return first == std::string::npos ? "" : text.substr(first, text.find_last_not_of(' ') - first + 1);
}

// The README's settings table, by variable: its cells (name, meaning, default, scope).
std::map<std::string, std::vector<std::string>> readme_settings() {
  std::istringstream in(ucudnn::testing::read_bytes((fs::path(UCUDNN_SOURCE_DIR) / "README.md").string()));
  std::map<std::string, std::vector<std::string>> rows;
  bool in_section = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## Settings";
    if (!in_section || line.rfind("| `UCUDNN_", 0) != 0) continue;
    std::vector<std::string> cells;
    std::istringstream row(line.substr(1));
    for (std::string cell; std::getline(row, cell, '|');) cells.push_back(trimmed(cell));
    if (cells.size() >= 3) rows[without_backticks(cells[0])] = cells;
  }
  return rows;
}

TEST(SettingsTable, EveryVariableIsInTheReadmesTableWithItsDefault) {
  const auto readme = readme_settings();
  ASSERT_FALSE(readme.empty()) << "no settings table under '## Settings' in README.md";
  std::set<std::string> declared;
  for (const SettingRow& row : setting_rows()) {
    SCOPED_TRACE(row.name);
    declared.insert(row.name);
    if (row.old_name_of) {  // an old name is told in its new name's row
      const auto current = readme.find(row.old_name_of);
      ASSERT_NE(current, readme.end()) << row.old_name_of << " is not in the README's table";
      EXPECT_NE(current->second[1].find(row.name), std::string::npos) << current->second[1];
      continue;
    }
    const auto found = readme.find(row.name);
    ASSERT_NE(found, readme.end()) << "not in the README's settings table";
    EXPECT_EQ(without_backticks(found->second[2]), row.default_text) << "the README's default differs";
  }
  for (const auto& [name, cells] : readme) {
    EXPECT_TRUE(declared.count(name)) << name << " is in the README's table but no setting (core/env_config.cpp)";
  }
}

TEST(SettingsTable, HelpListsEveryVariableWithItsMeaningAndDefault) {
  std::ostringstream out;
  std::ostringstream err;
  ASSERT_EQ(ucudnn::tools::run_cli({"--help"}, out, err), 0) << err.str();
  const std::string help = out.str();
  for (const SettingRow& row : setting_rows()) {
    SCOPED_TRACE(row.name);
    const auto at = help.find("  " + std::string(row.name) + " ");
    ASSERT_NE(at, std::string::npos) << help;
    const std::string line = help.substr(at, help.find('\n', at) - at);
    EXPECT_NE(line.find(row.meaning), std::string::npos) << line;
    EXPECT_NE(line.find("(default: " + std::string(row.default_text) + ")"), std::string::npos) << line;
  }
}

// Every row is complete, and every name is declared once.
TEST(SettingsTable, EveryRowHasANameAMeaningADefaultAndOneReader) {
  std::set<std::string> names;
  for (const SettingRow& row : setting_rows()) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(std::string(row.name).rfind("UCUDNN_", 0), 0u);
    EXPECT_TRUE(names.insert(row.name).second) << "declared twice";
    EXPECT_STRNE(row.meaning, "");
    EXPECT_STRNE(row.default_text, "");
    EXPECT_NE(row.apply == nullptr, row.old_name_of == nullptr)
        << "a row is read by itself or, an old name, by another";
  }
}

// A name that is no setting is a caller's typo: refused, never ignored.
TEST(SettingsTable, AnUnknownNameIsRefused) {
  const auto parsed = ucudnn::parse_settings({{"UCUDNN_NO_SUCH_SETTING", "1"}});
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().code, ucudnn::ErrorCode::kInternal);
  EXPECT_NE(parsed.message().find("UCUDNN_NO_SUCH_SETTING"), std::string::npos) << parsed.message();
}

}  // namespace
