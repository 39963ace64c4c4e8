#pragma once
// `ucudnn bench --network NET [--database FILE] [--policy P] [--search MODE] [--measurements FILE]`: offline
// benchmarking of a network into the benchmark database (needs a GPU); --measurements also writes
// the network's rows as a benchmark table. --net, the name 0.1 gave --network, is still accepted
// (not shown in --help).

#include <CLI/CLI.hpp>

#include <utility>

#include "tools/command.h"

namespace ucudnn::tools {

/// Registers `bench` on the application; the runner does the work once parsing succeeded.
std::pair<CLI::App*, CommandRunner> add_bench_command(CLI::App& app);

}  // namespace ucudnn::tools
