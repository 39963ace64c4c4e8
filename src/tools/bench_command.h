#pragma once
// `ucudnn bench`: offline benchmarking of a network into the benchmark database (needs a GPU).

#include <CLI/CLI.hpp>

#include <utility>

#include "tools/command.h"

namespace ucudnn {

/// Registers `bench` on the application; the runner does the work once parsing succeeded.
std::pair<CLI::App*, CommandRunner> add_bench_command(CLI::App& app);

}  // namespace ucudnn
