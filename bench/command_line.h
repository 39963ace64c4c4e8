#pragma once
// What the GPU benchmarks with options share: running CLI11's parser with one-line errors.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>

#include "bench_support.h"

namespace bench {

/// Parses the command line into `app`'s options: nothing where the program goes on, else the status
/// to exit with (after --help, or after a bad option said in one line under program_name).
inline std::optional<int> parse_command_line(CLI::App* app, int argc, char** argv) {
  try {
    app->parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app->exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s: error: %s\n", program_name, e.what());
    return 2;
  }
  return std::nullopt;
}

}  // namespace bench
