#pragma once
// `ucudnn plan --measurements FILE.csv --workspace-limit SIZE [--policy P] [--json]`:
// plans every kernel of a recorded benchmark table offline, without a GPU.

#include <utility>

#include <CLI/App.hpp>

#include "tools/command.h"

namespace ucudnn {

/// Adds the `plan` subcommand to `app`; returns it with the runner to call once it is parsed.
std::pair<CLI::App*, CommandRunner> add_plan_command(CLI::App& app);

}  // namespace ucudnn
