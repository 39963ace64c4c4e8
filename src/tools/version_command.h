#pragma once
// `ucudnn --version` and `ucudnn version`: the release, from include/ucudnn/version.h, and on a
// second line what this build was compiled with (tools/build_info.h), e.g.
//   ucudnn 0.2.0
//   built with cuDNN 9.19.0, CUDA 13.0
// Either takes no other argument; extras are a usage error.

#include <string>
#include <utility>

#include <CLI/App.hpp>

#include "tools/command.h"

namespace ucudnn::tools {

/// The two lines, each ending in a newline.
std::string version_text();

/// Adds the `version` subcommand to `app`; returns it with the runner to call once it is parsed.
std::pair<CLI::App*, CommandRunner> add_version_command(CLI::App& app);

}  // namespace ucudnn::tools
