#include "tools/version_command.h"

#include "tools/build_info.h"
#include "tools/cli.h"
#include "ucudnn/version.h"

namespace ucudnn::tools {

std::string version_text() {
  return "ucudnn " + std::to_string(UCUDNN_VERSION_MAJOR) + "." + std::to_string(UCUDNN_VERSION_MINOR) + "." +
         std::to_string(UCUDNN_VERSION_PATCH) + "\n" + build_description() + "\n";
}

std::pair<CLI::App*, CommandRunner> add_version_command(CLI::App& app) {
  CLI::App* version = app.add_subcommand("version", "Print the version and what this build was compiled with");
  return {version, [](std::ostream& out, std::ostream&) {
            out << version_text();
            return kExitOk;
          }};
}

}  // namespace ucudnn::tools
