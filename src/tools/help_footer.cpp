#include "tools/help_footer.h"

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

#include "tools/settings_help.h"

namespace ucudnn::tools {
namespace {

constexpr char kSizeNote[] =
    "SIZE: a number of bytes (0, or 1048576 and more), or binary units: 64MiB or 64M = 67108864 bytes, likewise "
    "KiB/K, GiB/G, TiB/T; KB, MB, GB and TB are refused as ambiguous.\n";
constexpr char kTableNote[] =
    "A benchmark table (CSV) is named by --measurements FILE wherever one is read or written.\n";
constexpr char kExitNote[] = "Exit status: 0 success, 1 data error, 2 usage error; an error is one line on stderr.\n";

// The settings each command reads, by its path ("db verify"); a command not listed here is shown
// every setting. `run` has a footer of its own (its program reads them all).
const std::map<std::string, std::vector<std::string>>& settings_read() {
  static const std::map<std::string, std::vector<std::string>> read = {
      {"plan",
       {"UCUDNN_DEFAULT_WORKSPACE_LIMIT", "UCUDNN_TOTAL_WORKSPACE_SIZE", "UCUDNN_WD_TIME_LIMIT",
        "UCUDNN_BATCH_SIZE_POLICY", "UCUDNN_CANDIDATES", "UCUDNN_DATABASE"}},
      {"db", {"UCUDNN_DATABASE", "UCUDNN_DATABASE_JOURNAL"}},
      {"db import", {"UCUDNN_DATABASE", "UCUDNN_DATABASE_JOURNAL"}},
      {"db export", {"UCUDNN_DATABASE", "UCUDNN_DATABASE_JOURNAL"}},
      {"db stats", {"UCUDNN_DATABASE", "UCUDNN_DATABASE_JOURNAL"}},
      {"db verify", {"UCUDNN_DATABASE", "UCUDNN_DATABASE_JOURNAL"}},
      {"db merge", {}},
      {"version", {}},
  };
  return read;
}

std::string command_path(const CLI::App& command) {
  std::string path;
  for (const CLI::App* at = &command; at != nullptr && at->get_parent() != nullptr; at = at->get_parent()) {
    path = at->get_name() + (path.empty() ? "" : " " + path);
  }
  return path;
}

bool has_option(const CLI::App& command, bool (*wanted)(const CLI::Option&)) {
  for (const CLI::Option* option : command.get_options()) {
    if (wanted(*option)) return true;
  }
  return false;
}

std::string fitting_footer(const CLI::App& command) {
  std::string footer;
  if (has_option(command, [](const CLI::Option& o) { return o.get_type_name() == "SIZE"; })) footer += kSizeNote;
  if (has_option(command, [](const CLI::Option& o) { return o.check_lname("measurements"); })) footer += kTableNote;
  footer += kExitNote;
  const auto& read = settings_read();
  const auto listed = read.find(command_path(command));
  if (listed == read.end()) {
    footer += "\n" + settings_help();
  } else if (!listed->second.empty()) {
    footer += "\n" + settings_help(listed->second);
  }
  footer.pop_back();  // CLI11 puts a line break after a footer made by a function
  return footer;
}

void add_to_subcommands(CLI::App& command) {
  for (CLI::App* sub : command.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_footer().empty()) sub->footer([sub] { return fitting_footer(*sub); });
    add_to_subcommands(*sub);
  }
}

}  // namespace

std::string main_help_footer() { return std::string(kSizeNote) + kTableNote + kExitNote + "\n" + settings_help(); }

void add_fitting_footers(CLI::App& app) { add_to_subcommands(app); }

}  // namespace ucudnn::tools
