#include "tools/version_command.h"

#include "tools/build_info.h"
#include "tools/cli_options.h"
#include "ucudnn/version.h"

namespace ucudnn::tools {

std::string version_text() {
  const std::string version = std::to_string(UCUDNN_VERSION_MAJOR) + "." + std::to_string(UCUDNN_VERSION_MINOR) +
                              "." + std::to_string(UCUDNN_VERSION_PATCH);
#ifdef UCUDNN_UNRELEASED_CHANGES
  // The library's version macros stay the release's; the command says the tree holds more.
  const std::string changes = "+unreleased (changes after " + version + ": CHANGELOG.md, \"Unreleased\")";
#else
  const std::string changes;
#endif
  return "ucudnn " + version + changes + "\n" + build_description() + "\n";
}

std::pair<CLI::App*, CommandRunner> add_version_command(CLI::App& app) {
  CLI::App* version = app.add_subcommand("version", "Print the version and what this build was compiled with");
  return {version, [](std::ostream& out, std::ostream&) {
            out << version_text();
            return kExitOk;
          }};
}

}  // namespace ucudnn::tools
