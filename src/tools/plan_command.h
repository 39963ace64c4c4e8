#pragma once
// `ucudnn plan --measurements FILE.csv (--workspace-limit SIZE | --total-workspace SIZE |
//  --pareto LAYER:OP) [--policy P] [--candidates legacy|engines|both] [--json]`: plans every
// kernel of a recorded benchmark table offline, without a GPU, by workspace reuse (a limit per
// kernel) or workspace division (one budget for all), from the table's rows of the candidates
// chosen (default both: legacy algorithms and engine configurations). An engine run prints as
// its configuration id (e.g. "4 x 64 eng12:k3=1") where a legacy one prints its algorithm.
// Sizes are core/units.h's: binary (64M = 64MiB), MB refused as ambiguous.

#include <utility>

#include <CLI/App.hpp>

#include "tools/command.h"

namespace ucudnn::tools {

/// Adds the `plan` subcommand to `app`; returns it with the runner to call once it is parsed.
std::pair<CLI::App*, CommandRunner> add_plan_command(CLI::App& app);

}  // namespace ucudnn::tools
