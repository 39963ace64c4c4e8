#pragma once
// `ucudnn plan --measurements FILE.csv (--workspace-limit SIZE | --total-workspace SIZE)
//  [--policy P] [--json]`: plans every kernel of a recorded benchmark table offline, without a
// GPU, by workspace reuse (a limit per kernel) or workspace division (one budget for all).

#include <utility>

#include <CLI/App.hpp>

#include "tools/command.h"

namespace ucudnn {

/// Adds the `plan` subcommand to `app`; returns it with the runner to call once it is parsed.
std::pair<CLI::App*, CommandRunner> add_plan_command(CLI::App& app);

}  // namespace ucudnn
