// `ucudnn db`: registers the subcommands and their options, opens the database, runs the one given.
#include "tools/db_command.h"

#include <memory>
#include <string>

#include "core/env_config.h"
#include "core/units.h"
#include "tools/cli_options.h"
#include "tools/db_subcommands.h"

namespace ucudnn::tools::db_subcommands {

Expected<DatabaseTarget> database_target(const DbOptions& options, bool looking) {
  DatabaseTarget target;
  UCUDNN_TRY_ASSIGN(target.path, database_path(options.database));
  target.options.journal = env_config()->database_journal;  // valid: database_path checked it
  target.options.create = !looking;
  target.options.read_only = looking;
  return target;
}

Expected<std::unique_ptr<BenchmarkDatabase>> open_database(const DatabaseTarget& target) {
  return BenchmarkDatabase::open(target.path, target.options);
}

namespace {

// A subcommand that reads the database: export, stats, verify.
using LookingCommand = int (*)(const DbOptions&, BenchmarkDatabase&, std::ostream& out, std::ostream& err);

// Runs `look` on the database opened read-only; a missing --database is a usage error, a
// database that cannot be opened a data error.
int run_looking(LookingCommand look, const DbOptions& options, std::ostream& out, std::ostream& err) {
  auto target = database_target(options, true);
  if (!target) return report_error(err, kExitUsageError, target.message());
  target->options.check_schema = look != run_verify;  // verify opens a damaged schema to name its damage
  const auto database = open_database(*target);
  if (!database) return report_error(err, kExitDataError, database.message());
  return look(options, **database, out, err);
}

void add_database_option(CLI::App* command, DbOptions& options) {
  command
      ->add_option("--database", options.database,
                   "Benchmark database file (default: the UCUDNN_DATABASE environment variable)")
      ->type_name("FILE");
}

}  // namespace

}  // namespace ucudnn::tools::db_subcommands

namespace ucudnn::tools {

std::pair<CLI::App*, CommandRunner> add_db_command(CLI::App& app) {
  using namespace db_subcommands;
  auto options = std::make_shared<DbOptions>();
  CLI::App* db = app.add_subcommand("db", "Import, export and inspect the benchmark database");
  // At most one; none is reported by the runner, so that `db bogus` names the stray word
  // (CLI11 would only say that a subcommand is required).
  db->require_subcommand(0, 1);

  CLI::App* import = db->add_subcommand("import", "Store a recorded benchmark table (CSV) in the database");
  add_database_option(import, *options);
  // Required, checked by the runner: the positional spelling of 0.1 may stand in for it.
  import->add_option("--measurements", options->table,
                     "Benchmark table CSV (layer,op,microbatch,algo,math_type,time_ms,"
                     "workspace_bytes[,engine[,host_ms]]); required")
      ->type_name("FILE");
  import->add_option("file", options->positional_table, "The table as 0.1 took it, in place of --measurements")
      ->group("");  // hidden: still accepted, no longer shown
  import->add_option("--network", options->network,
                     "The network whose layers the table names: a built-in network or a network JSON file")
      ->type_name("NET")
      ->required();
  import->add_option("--gpu-name", options->gpu_name, "GPU the table was measured on (cudaDeviceProp::name)")
      ->required();
  add_integer_option(import, "--compute-capability", options->compute_capability, "Its compute capability, e.g. 90")
      ->required();
  add_integer_option(import, "--sm-count", options->sm_count, "Its number of SMs, e.g. 132")->required();
  add_integer_option(import, "--cudnn-version", options->cudnn_version, "cudnnGetVersion() of the run, e.g. 91400")
      ->required();
  add_integer_option(import, "--cuda-version", options->cuda_version, "cudaRuntimeGetVersion() of the run, e.g. 13000")
      ->required();
  import->add_option("--measured-up-to", options->measured_up_to,
                     std::string("Workspace size up to which the table lists every algorithm, e.g. 4GiB (default: "
                                 "any; kernels are then never benchmarked again for this GPU); ") +
                         kByteSizeUnits)
      ->type_name("SIZE");

  CLI::App* exporter =
      db->add_subcommand("export", "Write one device's rows as a benchmark table (what plan and db import read)");
  add_database_option(exporter, *options);
  exporter
      ->add_option("--output,--measurements", options->output,
                   "Write the table to FILE, which must not exist (whole or not at all), instead of standard output")
      ->type_name("FILE");
  exporter->add_flag("--csv", options->csv,
                     "Accepted and ignored: the table is always CSV "
                     "(layer,op,microbatch,algo,math_type,time_ms,workspace_bytes,engine,host_ms)");
  exporter->add_option("--network", options->network,
                       "Name layers as this network does (a built-in network or a network JSON file); "
                       "default: by layer signature")
      ->type_name("NET");
  options->gpu_name_given =
      exporter->add_option("--gpu-name", options->gpu_name, "Export the rows of this GPU (needed if there are several)");
  options->compute_capability_given = add_integer_option(exporter, "--compute-capability",
                                                         options->compute_capability, "... of this compute capability");
  options->sm_count_given = add_integer_option(exporter, "--sm-count", options->sm_count, "... of this number of SMs");
  options->cudnn_version_given = add_integer_option(exporter, "--cudnn-version", options->cudnn_version,
                                                    "... measured with this cuDNN version");
  options->cuda_version_given = add_integer_option(exporter, "--cuda-version", options->cuda_version,
                                                   "... measured with this CUDA runtime version");

  CLI::App* stats = db->add_subcommand("stats", "Count rows, kernels, GPUs, cuDNN versions and engine rows");
  add_database_option(stats, *options);
  stats->add_flag("--json", options->json, "Print one JSON object");

  CLI::App* verify = db->add_subcommand("verify", "Check the database's integrity and schema");
  add_database_option(verify, *options);

  CLI::App* merge =
      db->add_subcommand("merge", "Copy every row and coverage bound of one database into another (a system one)");
  merge->add_option("--from", options->from, "The database to copy (opened read-only, never changed)")
      ->type_name("FILE")
      ->required();
  merge->add_option("--into", options->into, "The database to add its rows to; it must exist unless --create")
      ->type_name("FILE")
      ->required();
  merge->add_flag("--create", options->create, "Create --into if it does not exist");
  merge
      ->add_option("--journal", options->journal,
                   "Journal mode --into is left in: delete (the default: what read-only readers read in place), "
                   "truncate, persist, wal, or auto (keep the mode an existing file is in)")
      ->type_name("MODE");

  return {db, [=](std::ostream& out, std::ostream& err) {
            if (import->parsed()) return run_import(*options, out, err);
            if (exporter->parsed()) return run_looking(run_export, *options, out, err);
            if (stats->parsed()) return run_looking(run_stats, *options, out, err);
            if (verify->parsed()) return run_looking(run_verify, *options, out, err);
            if (merge->parsed()) return run_merge(*options, out, err);
            return report_error(err, kExitUsageError,
                                "db: a subcommand is required: import, export, stats, verify or merge (see --help)");
          }};
}

}  // namespace ucudnn::tools
