#pragma once
// What `--help` says after a command's options: the notes that fit that command only. SIZE is
// explained where an option takes one, the table's option where one reads or writes a table, and
// the settings listed are those the command reads, so that `db verify --help` does not end with
// notes about options it does not have.

#include <string>

namespace CLI {
class App;
}  // namespace CLI

namespace ucudnn::tools {

/// The main help's footer: every note and every setting.
std::string main_help_footer();

/// Gives every subcommand of `app` (at any depth) without a footer of its own one made from its
/// options when its help is asked for: call once every subcommand and option is declared, and
/// before `app` has a footer (CLI11 copies a parent's footer into subcommands made after it).
void add_fitting_footers(CLI::App& app);

}  // namespace ucudnn::tools
