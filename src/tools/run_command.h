#pragma once
// `ucudnn run [--preload PATH] [--cudnn PATH] [--workspace-limit SIZE] [--database PATH]
//  [--policy P] [--candidates SET] [--no-stats] [--dry-run] -- PROGRAM [ARGS...]`: runs any
// program (`ucudnn run --workspace-limit 64MiB -- python3 train.py`) under ucudnn's LD_PRELOAD
// layer, so that programs that link or dlopen cuDNN (PyTorch among them) reach ucudnn unchanged.
//
// It finds the preload library (tools/run_environment.h) and the cuDNN the program will use
// (tools/cudnn_locator.h), refuses a cuDNN of another major version or CUDA major than this build
// (the child is not started), says on stderr in one line what it preloads, then runs the program
// with that environment (the options become UCUDNN_* variables) and exits with its status. The
// program prints ucudnn's statistics at exit itself (UCUDNN_STATS=1, unless --no-stats).
// --dry-run prints the environment changes and the command instead, one per line. In the build
// without CUDA there is no preload library: `run` says so and fails.

#include <utility>

#include <CLI/App.hpp>

#include "tools/command.h"

namespace ucudnn::tools {

/// Adds the `run` subcommand to `app`; returns it with the runner to call once it is parsed.
std::pair<CLI::App*, CommandRunner> add_run_command(CLI::App& app);

}  // namespace ucudnn::tools
