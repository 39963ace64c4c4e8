#include "tools/db_command.h"

#include <cerrno>
#include <cstdint>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/conv_layer.h"
#include "core/env_config.h"
#include "core/measurement_csv.h"
#include "core/units.h"
#include "core/utf8.h"
#include "store/database.h"
#include "tools/cli.h"
#include "tools/networks.h"

namespace ucudnn {
namespace {

struct DbOptions {
  std::string database;
  // import
  std::string table;
  std::string network;
  std::string gpu_name;
  int compute_capability = 0;
  int sm_count = 0;
  int cudnn_version = 0;
  int cuda_version = 0;
  std::string measured_up_to;  ///< empty: complete for any workspace limit
  // export
  bool csv = false;
  std::string output;
  // stats
  bool json = false;
};

// Where and how to open the database.
struct DatabaseTarget {
  std::string path;
  BenchmarkDatabase::Options options;
};

// The --database option, else UCUDNN_DATABASE (neither is a usage error); the journal mode of
// UCUDNN_DATABASE_JOURNAL, as the library uses it, so that both treat a shared file alike.
// Looking (not importing) opens read-only and never creates a file.
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

// Measurement tables carry no determinism; cuDNN documents the atomics-based algorithms
// (backward data ALGO_0, backward filter ALGO_0 and ALGO_3) as non-deterministic.
bool documented_deterministic(ConvOp op, int algo) {
  switch (op) {
    case ConvOp::kForward: return true;
    case ConvOp::kBackwardData: return algo != 0;
    case ConvOp::kBackwardFilter: return algo != 0 && algo != 3;
  }
  return true;
}

// ---- import -----------------------------------------------------------------------------------

Expected<DeviceIdentity> identity_of(const DbOptions& options) {
  if (options.gpu_name.empty() || options.gpu_name.find_first_of("\n\r") != std::string::npos) {
    return Error{"--gpu-name must be a non-empty single line"};
  }
  if (!is_valid_utf8(options.gpu_name)) return Error{"--gpu-name is not valid UTF-8"};  // names go into JSON
  const struct {
    const char* name;
    int value;
  } numbers[] = {{"--compute-capability", options.compute_capability},
                 {"--sm-count", options.sm_count},
                 {"--cudnn-version", options.cudnn_version},
                 {"--cuda-version", options.cuda_version}};
  for (const auto& number : numbers) {
    if (number.value <= 0) {
      return Error{std::string(number.name) + " must be a positive integer, not " + std::to_string(number.value)};
    }
  }
  DeviceIdentity identity;
  identity.gpu_name = options.gpu_name;
  identity.compute_capability = options.compute_capability;
  identity.sm_count = options.sm_count;
  identity.cudnn_version = options.cudnn_version;
  identity.cuda_runtime_version = options.cuda_version;
  return identity;
}

// The table's rows as database rows: each layer name becomes its convolution in the network.
Expected<std::vector<StoredRow>> rows_of_table(const DbOptions& options, const DeviceIdentity& identity) {
  std::error_code ignored;
  if (std::filesystem::is_directory(options.table, ignored)) {
    return Error{"measurements file '" + options.table + "' is a directory"};
  }
  UCUDNN_TRY_ASSIGN(const auto kernels, read_measurements_csv(options.table));
  UCUDNN_TRY_ASSIGN(const auto network, resolve_network(options.network));

  const std::string measured_at = utc_timestamp();
  std::vector<StoredRow> rows;
  for (const KernelMeasurements& kernel : kernels) {
    const ConvLayerSpec* spec = find_layer(network, kernel.layer);
    if (spec == nullptr) {
      return Error{options.table + ": layer '" + kernel.layer + "' is not a layer of network '" + network.name + "'"};
    }
    UCUDNN_TRY_ASSIGN(const ConvKey key, to_conv_key(*spec, kernel.op));
    for (const Measurement& row : kernel.rows) {
      StoredRow stored;
      stored.identity = identity;
      stored.op = kernel.op;
      stored.layer = key.with_batch(row.micro_batch).layer_signature();
      stored.measurement = row;
      stored.measurement.deterministic = documented_deterministic(kernel.op, row.algo);
      stored.measured_at = measured_at;
      rows.push_back(std::move(stored));
    }
  }
  return rows;
}

int run_import(const DbOptions& options, std::ostream& out, std::ostream& err) {
  // Usage errors come before any file is read.
  const auto target = database_target(options, false);
  if (!target) return report_error(err, kExitUsageError, target.message());
  const auto identity = identity_of(options);
  if (!identity) return report_error(err, kExitUsageError, identity.message());
  std::size_t measured_up_to = SIZE_MAX;
  if (!options.measured_up_to.empty()) {
    const auto bound = parse_byte_size(options.measured_up_to);
    if (!bound) return report_error(err, kExitUsageError, "--measured-up-to: " + bound.message());
    measured_up_to = *bound;
  }

  const auto rows = rows_of_table(options, *identity);
  if (!rows) return report_error(err, kExitDataError, rows.message());
  const auto database = open_database(*target);
  if (!database) return report_error(err, kExitDataError, database.message());
  const auto added = (*database)->store_rows(*rows, measured_up_to);
  if (!added) return report_error(err, kExitDataError, added.message());
  out << rows->size() << " rows read, " << *added << " new\n";
  return kExitOk;
}

// ---- export -----------------------------------------------------------------------------------

// RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

// The shortest decimal text that reads back as the same double, so exports round-trip.
std::string shortest_double(double value) {
  char text[64];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

std::string rows_to_csv(const std::vector<StoredRow>& rows) {
  std::ostringstream csv;
  csv << "gpu_name,compute_capability,sm_count,cudnn_version,cuda_runtime_version,op,layer,microbatch,algo,"
         "math_type,deterministic,time_ms,workspace_bytes,measured_at\n";
  for (const StoredRow& row : rows) {
    const DeviceIdentity& id = row.identity;
    const Measurement& m = row.measurement;
    csv << csv_field(id.gpu_name) << ',' << id.compute_capability << ',' << id.sm_count << ',' << id.cudnn_version
        << ',' << id.cuda_runtime_version << ',' << short_name(row.op) << ',' << csv_field(row.layer) << ','
        << m.micro_batch << ',' << m.algo << ',' << m.math_type << ',' << (m.deterministic ? 1 : 0) << ','
        << shortest_double(m.time_ms) << ',' << m.workspace_bytes << ',' << csv_field(row.measured_at) << '\n';
  }
  return csv.str();
}

int run_export(const DbOptions& options, BenchmarkDatabase& database, std::ostream& out, std::ostream& err) {
  const auto rows = database.all_rows();
  if (!rows) return report_error(err, kExitDataError, rows.message());
  const std::string csv = rows_to_csv(*rows);  // complete before anything is written
  if (options.output.empty()) {
    out << csv;
    return kExitOk;
  }
  std::ofstream file(options.output, std::ios::binary | std::ios::trunc);
  if (!file) return report_error(err, kExitDataError, "cannot write '" + options.output + "': " + std::strerror(errno));
  file << csv;
  file.close();
  if (!file) return report_error(err, kExitDataError, "cannot write '" + options.output + "'");
  return kExitOk;
}

// ---- stats and verify -------------------------------------------------------------------------

template <typename T>
std::string joined(const std::vector<T>& values) {
  std::ostringstream text;
  for (std::size_t i = 0; i < values.size(); ++i) text << (i ? ", " : "") << values[i];
  return text.str();
}

int run_stats(const DbOptions& options, BenchmarkDatabase& database, std::ostream& out, std::ostream& err) {
  const auto stats = database.stats();
  if (!stats) return report_error(err, kExitDataError, stats.message());
  if (options.json) {
    nlohmann::ordered_json json;
    json["rows"] = stats->rows;
    json["kernels"] = stats->kernels;
    json["gpus"] = stats->gpus;
    json["cudnn_versions"] = stats->cudnn_versions;
    // Names stored by older versions may not be UTF-8: replaced (U+FFFD), never a failed dump.
    out << json.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
    return kExitOk;
  }
  out << "rows: " << stats->rows << '\n' << "kernels: " << stats->kernels << '\n';
  out << "GPUs: " << stats->gpus.size() << (stats->gpus.empty() ? "" : " (" + joined(stats->gpus) + ")") << '\n';
  out << "cuDNN versions: " << stats->cudnn_versions.size()
      << (stats->cudnn_versions.empty() ? "" : " (" + joined(stats->cudnn_versions) + ")") << '\n';
  return kExitOk;
}

int run_verify(const DbOptions& /*options*/, BenchmarkDatabase& database, std::ostream& out, std::ostream& err) {
  const Status verified = database.verify();
  if (!verified) return report_error(err, kExitDataError, verified.message());
  out << "ok\n";
  return kExitOk;
}

// A subcommand that reads the database: export, stats, verify.
using LookingCommand = int (*)(const DbOptions&, BenchmarkDatabase&, std::ostream& out, std::ostream& err);

// Runs `look` on the database opened read-only; a missing --database is a usage error, a
// database that cannot be opened a data error.
int run_looking(LookingCommand look, const DbOptions& options, std::ostream& out, std::ostream& err) {
  const auto target = database_target(options, true);
  if (!target) return report_error(err, kExitUsageError, target.message());
  const auto database = open_database(*target);
  if (!database) return report_error(err, kExitDataError, database.message());
  return look(options, **database, out, err);
}

void add_database_option(CLI::App* command, DbOptions& options) {
  command->add_option("--database", options.database,
                      "Benchmark database file (default: the UCUDNN_DATABASE environment variable)");
}

}  // namespace

std::pair<CLI::App*, CommandRunner> add_db_command(CLI::App& app) {
  auto options = std::make_shared<DbOptions>();
  CLI::App* db = app.add_subcommand("db", "Import, export and inspect the benchmark database");
  // At most one; none is reported by the runner, so that `db bogus` names the stray word
  // (CLI11 would only say that a subcommand is required).
  db->require_subcommand(0, 1);

  CLI::App* import = db->add_subcommand("import", "Store a recorded benchmark table (CSV) in the database");
  add_database_option(import, *options);
  import->add_option("file", options->table, "Benchmark table CSV (layer,op,microbatch,algo,math_type,time_ms,"
                                             "workspace_bytes)")
      ->required();
  import->add_option("--network", options->network,
                     "The network whose layers the table names: a built-in network or a network JSON file")
      ->required();
  import->add_option("--gpu-name", options->gpu_name, "GPU the table was measured on (cudaDeviceProp::name)")
      ->required();
  import->add_option("--compute-capability", options->compute_capability, "Its compute capability, e.g. 90")
      ->required();
  import->add_option("--sm-count", options->sm_count, "Its number of SMs, e.g. 132")->required();
  import->add_option("--cudnn-version", options->cudnn_version, "cudnnGetVersion() of the run, e.g. 91400")
      ->required();
  import->add_option("--cuda-version", options->cuda_version, "cudaRuntimeGetVersion() of the run, e.g. 13000")
      ->required();
  import->add_option("--measured-up-to", options->measured_up_to,
                     "Workspace size up to which the table lists every algorithm, e.g. 4GiB (default: any; "
                     "kernels are then never benchmarked again for this GPU)");

  CLI::App* exporter = db->add_subcommand("export", "Write every row of the database");
  add_database_option(exporter, *options);
  exporter->add_flag("--csv", options->csv, "As CSV (the only format)")->required();
  exporter->add_option("--output", options->output, "Write to FILE instead of standard output");

  CLI::App* stats = db->add_subcommand("stats", "Count rows, kernels, GPUs and cuDNN versions");
  add_database_option(stats, *options);
  stats->add_flag("--json", options->json, "Print one JSON object");

  CLI::App* verify = db->add_subcommand("verify", "Check the database's integrity and schema");
  add_database_option(verify, *options);

  return {db, [=](std::ostream& out, std::ostream& err) {
            if (import->parsed()) return run_import(*options, out, err);
            if (exporter->parsed()) return run_looking(run_export, *options, out, err);
            if (stats->parsed()) return run_looking(run_stats, *options, out, err);
            if (verify->parsed()) return run_looking(run_verify, *options, out, err);
            return report_error(err, kExitUsageError,
                                "db: a subcommand is required: import, export, stats or verify (see --help)");
          }};
}

}  // namespace ucudnn
