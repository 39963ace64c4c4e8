#pragma once
// `ucudnn db SUBCOMMAND --database PATH ...`: the benchmark database from the command line.
// --database may be left out where the environment variable UCUDNN_DATABASE names the file.
//
//   db import FILE.csv --network NET --gpu-name NAME --compute-capability CC --sm-count N
//             --cudnn-version V --cuda-version V [--measured-up-to SIZE]
//       Stores the rows of a recorded benchmark table (tests/data/README.md's format), measured
//       on the GPU and library versions given (cudnnGetVersion() and cudaRuntimeGetVersion()
//       numbers, e.g. 91400 and 13000), in one transaction; creates the database if missing.
//       NET (a built-in network or a network file, see tools/networks.h) gives each layer name
//       of the table its convolution; micro-batches are the table's. Rows already stored are
//       kept. The table has no determinism column, so each algorithm's documented cuDNN
//       determinism is stored. Every kernel of the table counts as measured completely up to
//       the workspace size SIZE (default: any size, so the library never benchmarks it again on
//       this GPU). Prints "R rows read, N new".
//   db export --csv [--output FILE]
//       Every row, as CSV (RFC 4180 quoting) with the header
//         gpu_name,compute_capability,sm_count,cudnn_version,cuda_runtime_version,op,layer,
//         microbatch,algo,math_type,deterministic,time_ms,workspace_bytes,measured_at
//       where op is fwd/bwdd/bwdf, layer the layer signature (ConvKey::layer_signature),
//       deterministic 1 or 0, and time_ms the shortest text that reads back as the stored value.
//   db stats [--json]
//       Rows, kernels (distinct op and layer), GPUs and cuDNN versions.
//   db verify
//       Checks the file's integrity and schema; prints "ok".
//
// Export, stats and verify open the database read-only and never create it. Exit statuses are
// cli.h's: 2 for usage errors (including no database given), 1 for data errors (a missing or
// damaged database, a bad table, a layer the network does not have).

#include <utility>

#include <CLI/App.hpp>

#include "tools/command.h"

namespace ucudnn {

/// Adds the `db` subcommand and its subcommands to `app`; returns it with its runner.
std::pair<CLI::App*, CommandRunner> add_db_command(CLI::App& app);

}  // namespace ucudnn
