#pragma once
// `ucudnn plan [FILE] [NET] [--measurements FILE] [--network NET] [--workspace-limit SIZE |
//  --total-workspace SIZE | --pareto LAYER:OP] [--policy P] [--candidates legacy|engines|both]
//  [--json]`: plans every kernel of recorded measurements offline, without a GPU, by workspace
// reuse (a limit per kernel) or workspace division (one budget for all), from the rows of the
// candidates chosen. The measurements are a benchmark table or a ucudnn database, told apart by
// content (tools/plan_input.h), UCUDNN_DATABASE where none is given. What no option says, the
// settings say as they do for the library: the mode and size (WD under UCUDNN_TOTAL_WORKSPACE_SIZE,
// else WR under UCUDNN_DEFAULT_WORKSPACE_LIMIT), the policy and the candidates. An engine run
// prints as its configuration id (e.g. "4 x 64 eng12:k3=1") where a legacy one prints its
// algorithm. Sizes are core/units.h's: binary (64M = 64MiB), MB refused as ambiguous.

#include <utility>

#include <CLI/App.hpp>

#include "tools/command.h"

namespace ucudnn::tools {

/// Adds the `plan` subcommand to `app`; returns it with the runner to call once it is parsed.
std::pair<CLI::App*, CommandRunner> add_plan_command(CLI::App& app);

}  // namespace ucudnn::tools
