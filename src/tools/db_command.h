#pragma once
// `ucudnn db SUBCOMMAND --database PATH ...`: the benchmark database from the command line.
// --database may be left out where the environment variable UCUDNN_DATABASE names the file.
//
//   db import --measurements FILE.csv --network NET --gpu-name NAME --compute-capability CC
//             --sm-count N --cudnn-version V --cuda-version V [--measured-up-to SIZE]
//       Stores the rows of a recorded benchmark table (tests/data/README.md's format: legacy
//       algorithms and engine configurations, 7 to 9 columns), measured on the GPU and library
//       versions given (cudnnGetVersion() and cudaRuntimeGetVersion() numbers, e.g. 91400 and
//       13000), in one transaction; creates the database if missing. `db import FILE.csv ...`,
//       as 0.1 took the table, is still accepted without a warning (not shown in --help); giving
//       both is a usage error. NET (a built-in network or a network file, see tools/networks.h)
//       gives each layer name (or layer signature, as db export writes without --network) of the
//       table its convolution; micro-batches are the table's. Rows already stored are kept. The
//       table has no determinism column, so each algorithm's documented cuDNN determinism is
//       stored (engine rows: not deterministic, as nothing says they are). Every kernel of the
//       table counts as measured completely, for each kind of candidate it has rows of (legacy,
//       engines), up to the workspace size SIZE (default: any size, so the library never
//       benchmarks it again on this GPU). Prints "R rows read, N new".
//   db export [--network NET] [--gpu-name NAME ...] [--output FILE] [--csv]
//       One device's rows, legacy and engine, as the benchmark table of tests/data/README.md,
//         layer,op,microbatch,algo,math_type,time_ms,workspace_bytes,engine,host_ms
//       (engine empty for a legacy algorithm, quoted where the id holds a comma; host_ms 0 where
//       not measured), which `plan --measurements` and `db import` read back (each time is the
//       shortest text that reads back as the stored value). --measurements FILE is --output
//       FILE's other name (bench and import name the table so); --csv, which 0.1 required, is
//       accepted and ignored (CSV is the only format). A table has no device columns: where the
//       database holds rows of several device identities, the identity options of import
//       (--gpu-name, --compute-capability, --sm-count, --cudnn-version, --cuda-version) select
//       one, and without them the export fails listing the identities. Layers are named by the
//       network NET (a layer shape it has several times is written under each of its names; a
//       row of a layer it lacks fails the export), else by their layer signature
//       (ConvKey::layer_signature, which db import accepts in place of a name of its --network).
//       Not exported: the determinism (db import stores cuDNN's documented one) and the time of
//       measurement. --output FILE must not exist (nothing stored is overwritten); it is written
//       whole or not at all (a temporary file linked into place). A stream (/dev/stdout, a pipe)
//       is appended to. The database itself and SQLite's files beside it are refused.
//   db stats [--json]
//       Rows, kernels (distinct op and layer), GPUs, cuDNN versions and the rows of engines.
//   db verify
//       Checks the file's integrity and schema (its version, every table, index and key column);
//       prints "ok". A version-1 database (store/database.h) passes as version 1: these
//       commands open it read-only and never upgrade it; `db import` (and the library) do.
//   db merge --from USER.db --into SYSTEM.db [--create] [--journal MODE]
//       Copies every row and every coverage bound of USER.db into SYSTEM.db in one transaction
//       (not --database: neither is UCUDNN_DATABASE by default): a row SYSTEM.db has is kept as
//       it is, a bound only raised, each (device, kernel, micro-batch, kind of candidate) keeping
//       the bound USER.db gives it. USER.db is opened read-only and never changed. SYSTEM.db must
//       exist unless --create is given (a mistyped path must not become an empty database); it is
//       left in journal mode MODE (default delete: readers that may not write read a
//       rollback-journal file in place, where a WAL one is copied into each reader's memory).
//       The same file as both is refused. Prints "merged 'USER.db' into 'SYSTEM.db': A rows
//       added, P already there, C coverage bounds raised" (a new bound counts as raised).
//
// Export, stats and verify open the database read-only and never create it. Exit statuses are
// cli.h's: 2 for usage errors (including no database given), 1 for data errors (a missing or
// damaged database, a bad table, a layer the network does not have).

#include <utility>

#include <CLI/App.hpp>

#include "tools/command.h"

namespace ucudnn::tools {

/// Adds the `db` subcommand and its subcommands to `app`; returns it with its runner.
std::pair<CLI::App*, CommandRunner> add_db_command(CLI::App& app);

}  // namespace ucudnn::tools
