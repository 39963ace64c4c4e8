#include "tools/db_command.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/candidate_kinds.h"
#include "core/conv_layer.h"
#include "core/env_config.h"
#include "core/measurement_csv.h"
#include "core/units.h"
#include "core/utf8.h"
#include "store/database.h"
#include "tools/cli.h"
#include "tools/networks.h"

namespace ucudnn::tools {
using ucudnn::store::BenchmarkDatabase;
using ucudnn::store::StoredRow;
using ucudnn::store::utc_timestamp;

namespace {

struct DbOptions {
  std::string database;
  // import
  std::string table;             ///< --measurements
  std::string positional_table;  ///< the older spelling `db import FILE`, still accepted
  std::string network;
  std::string gpu_name;
  int compute_capability = 0;
  int sm_count = 0;
  int cudnn_version = 0;
  int cuda_version = 0;
  std::string measured_up_to;  ///< empty: complete for any workspace limit
  // export
  bool csv = false;    ///< accepted and ignored: CSV is the only format
  std::string output;  ///< --output or --measurements
  /// The identity options given to export: which of them select rows.
  const CLI::Option* gpu_name_given = nullptr;
  const CLI::Option* compute_capability_given = nullptr;
  const CLI::Option* sm_count_given = nullptr;
  const CLI::Option* cudnn_version_given = nullptr;
  const CLI::Option* cuda_version_given = nullptr;
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
// (backward data ALGO_0, backward filter ALGO_0 and ALGO_3) as non-deterministic. An engine's
// determinism is a note of the configuration that only cuDNN answers: not known, so not claimed
// (a caller that needs determinism never gets an imported engine row).
bool documented_deterministic(ConvOp op, const Measurement& m) {
  if (kind_of(m) != CandidateKind::kLegacy) return false;
  const int algo = m.algo;
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

  // A layer is named by its name in the network, or by its layer signature (what `db export`
  // writes without --network).
  std::map<std::pair<ConvOp, std::string>, const ConvLayerSpec*> by_signature;
  for (const ConvLayerSpec& spec : network.layers) {
    for (const ConvOp op : {ConvOp::kForward, ConvOp::kBackwardData, ConvOp::kBackwardFilter}) {
      const auto key = to_conv_key(spec, op);
      if (key) by_signature.emplace(std::make_pair(op, key->layer_signature()), &spec);
    }
  }

  const std::string measured_at = utc_timestamp();
  std::vector<StoredRow> rows;
  for (const KernelMeasurements& kernel : kernels) {
    const ConvLayerSpec* spec = find_layer(network, kernel.layer);
    if (spec == nullptr) {
      const auto signature = by_signature.find(std::make_pair(kernel.op, kernel.layer));
      if (signature != by_signature.end()) spec = signature->second;
    }
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
      stored.measurement.deterministic = documented_deterministic(kernel.op, row);
      stored.measured_at = measured_at;
      rows.push_back(std::move(stored));
    }
  }
  return rows;
}

// The table to import: --measurements FILE, or FILE alone as 0.1 wrote it; never both.
Expected<std::string> table_to_import(const DbOptions& options) {
  if (!options.table.empty() && !options.positional_table.empty()) {
    return Error{"the table is given twice ('" + options.positional_table + "' and --measurements '" + options.table +
                 "'): give it once, as --measurements FILE"};
  }
  if (options.table.empty() && options.positional_table.empty()) {
    return Error{"--measurements FILE is required: the benchmark table (CSV) to import"};
  }
  return options.table.empty() ? options.positional_table : options.table;
}

int run_import(DbOptions options, std::ostream& out, std::ostream& err) {
  // Usage errors come before any file is read.
  const auto table = table_to_import(options);
  if (!table) return report_error(err, kExitUsageError, table.message());
  options.table = *table;
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

// ---- export ----------------------------------------------------------------------------------

// The shortest decimal text that reads back as the same double, so exports round-trip.
std::string shortest_double(double value) {
  char text[64];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

// The rows of the one device identity that the identity options select; with several left, an
// error that lists them and names the options (the table format has no device columns, and one
// table holding several devices' rows of a layer would hold the same row twice).
Expected<std::vector<StoredRow>> rows_of_one_device(const DbOptions& options, std::vector<StoredRow> rows) {
  if (rows.empty()) return Error{"the database holds no rows: nothing to export"};
  auto selected = [&](const DeviceIdentity& id) {
    return (!options.gpu_name_given->count() || id.gpu_name == options.gpu_name) &&
           (!options.compute_capability_given->count() || id.compute_capability == options.compute_capability) &&
           (!options.sm_count_given->count() || id.sm_count == options.sm_count) &&
           (!options.cudnn_version_given->count() || id.cudnn_version == options.cudnn_version) &&
           (!options.cuda_version_given->count() || id.cuda_runtime_version == options.cuda_version);
  };
  auto tie = [](const DeviceIdentity& id) {
    return std::tie(id.gpu_name, id.compute_capability, id.sm_count, id.cudnn_version, id.cuda_runtime_version);
  };
  auto less = [&](const DeviceIdentity& a, const DeviceIdentity& b) { return tie(a) < tie(b); };
  std::set<DeviceIdentity, decltype(less)> all(less), chosen(less);
  std::vector<StoredRow> kept;
  for (StoredRow& row : rows) {
    all.insert(row.identity);
    if (!selected(row.identity)) continue;
    chosen.insert(row.identity);
    kept.push_back(std::move(row));
  }
  auto listed = [](const auto& identities) {
    std::string text;
    for (const DeviceIdentity& id : identities) text += (text.empty() ? "" : "; ") + id.to_string();
    return text;
  };
  const std::string options_text = "--gpu-name, --compute-capability, --sm-count, --cudnn-version, --cuda-version";
  if (chosen.empty()) {
    return Error{"no rows of the device selected by " + options_text + "; the database holds rows of: " + listed(all)};
  }
  if (chosen.size() > 1) {
    return Error{"the database holds rows of " + std::to_string(chosen.size()) + " devices (" + listed(chosen) +
                 "); a table holds one device's rows: choose one with " + options_text};
  }
  return kept;
}

// A layer name the table format can hold: its reader splits at commas and trims blanks.
bool table_safe(const std::string& name) {
  return !name.empty() && name.find_first_of(",\r\n\"") == std::string::npos && name.front() != ' ' &&
         name.back() != ' ' && name.front() != '\t' && name.back() != '\t' && name != "layer";
}

struct TableRow {
  std::size_t order = 0;  ///< the layer's place in the network (0 without one)
  std::string layer;
  ConvOp op = ConvOp::kForward;
  Measurement m;
};

// The rows under the names the table gives layers: the network's layer names (a layer shape the
// network has several times is written once per name, as a table measured on the network has
// it), else the layer signatures (db import reads either back with --network).
Expected<std::vector<TableRow>> named_rows(const DbOptions& options, const std::vector<StoredRow>& rows) {
  std::vector<TableRow> table;
  if (options.network.empty()) {
    for (const StoredRow& row : rows) table.push_back(TableRow{0, row.layer, row.op, row.measurement});
  } else {
    UCUDNN_TRY_ASSIGN(const auto network, resolve_network(options.network));
    std::map<std::pair<ConvOp, std::string>, std::vector<std::pair<std::size_t, std::string>>> names;
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
      for (const ConvOp op : {ConvOp::kForward, ConvOp::kBackwardData, ConvOp::kBackwardFilter}) {
        const auto key = to_conv_key(network.layers[i], op);
        if (key) names[{op, key->layer_signature()}].emplace_back(i, network.layers[i].name);
      }
    }
    long long unknown = 0;
    std::string example;
    for (const StoredRow& row : rows) {
      const auto found = names.find({row.op, row.layer});
      if (found == names.end()) {
        if (unknown++ == 0) example = std::string(short_name(row.op)) + " " + row.layer;
        continue;
      }
      for (const auto& [order, name] : found->second) table.push_back(TableRow{order, name, row.op, row.measurement});
    }
    if (unknown > 0) {
      return Error{std::to_string(unknown) + " rows are of layers that network '" + network.name +
                   "' does not have (the first: " + example +
                   "); export without --network to name layers by their signature"};
    }
  }
  for (const TableRow& row : table) {
    if (!table_safe(row.layer)) {
      return Error{"layer name '" + row.layer + "' cannot be written in the table format (a comma, quote, line break "
                   "or edge blank)"};
    }
  }
  std::stable_sort(table.begin(), table.end(), [](const TableRow& a, const TableRow& b) {
    return std::tie(a.order, a.layer, a.op, a.m.micro_batch, a.m.algo, a.m.math_type, a.m.engine) <
           std::tie(b.order, b.layer, b.op, b.m.micro_batch, b.m.algo, b.m.math_type, b.m.engine);
  });
  return table;
}

// The table format of tests/data/README.md, which `plan --measurements` and `db import` read.
std::string rows_to_table(const std::vector<TableRow>& rows) {
  std::ostringstream csv;
  csv << "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes,engine,host_ms\n";
  for (const TableRow& row : rows) {
    csv << row.layer << ',' << short_name(row.op) << ',' << row.m.micro_batch << ',' << row.m.algo << ','
        << row.m.math_type << ',' << shortest_double(row.m.time_ms) << ',' << row.m.workspace_bytes << ','
        << csv_engine_field(row.m.engine) << ',' << shortest_double(row.m.host_ms) << '\n';
  }
  return csv.str();
}

// Refuses an output that is the database or one of SQLite's files beside it: by inode (a link
// or another spelling of the path is the same file), and by name for side files that do not
// exist yet (SQLite would take a file of that name for a journal and discard it).
Status check_output(const std::string& output, const std::string& database) {
  std::error_code ignored;
  struct stat out {};
  const bool out_exists = ::stat(output.c_str(), &out) == 0;
  if (out_exists && S_ISDIR(out.st_mode)) return Error{"cannot write '" + output + "': it is a directory"};
  const auto out_path = std::filesystem::weakly_canonical(std::filesystem::absolute(output, ignored), ignored);
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    const std::string file = database + suffix;
    struct stat st {};
    const bool same_inode = out_exists && ::stat(file.c_str(), &st) == 0 && st.st_dev == out.st_dev &&
                            st.st_ino == out.st_ino;
    const auto file_path = std::filesystem::weakly_canonical(std::filesystem::absolute(file, ignored), ignored);
    if (same_inode || (!out_path.empty() && out_path == file_path)) {
      return Error{"--output '" + output + "' is the benchmark database" +
                   (*suffix ? std::string(" file '") + file + "'" : std::string(" '") + database + "'") +
                   " itself: refusing to overwrite it; choose another file"};
    }
  }
  return Status::success();
}

Status write_all(int fd, const std::string& text, const std::string& name) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{"cannot write '" + name + "': " + std::strerror(errno)};
    done += static_cast<std::size_t>(n);
  }
  return Status::success();
}

// A stream the user points at rather than a file to create: a device, pipe or socket, or a path
// under /dev or /proc (/dev/stdout redirected to a file is that file, but the user meant the
// stream: it is appended to, never replaced).
bool is_stream(const std::string& output, bool exists, const struct stat& st) {
  return (exists && !S_ISREG(st.st_mode)) || output.rfind("/dev/", 0) == 0 || output.rfind("/proc/", 0) == 0;
}

std::string parent_folder(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

// Writes `text` to `output`: a stream where it stands (appended), otherwise a new file, whole or
// not at all. An existing file is never overwritten (as `bench --measurements`): the new file is
// written beside it under a temporary name and linked into place, which fails if the name exists.
Status write_output(const std::string& output, const std::string& text) {
  const auto failed = [&](const std::string& what) { return Error{"cannot write '" + output + "': " + what}; };
  struct stat st {};
  const bool exists = ::lstat(output.c_str(), &st) == 0;
  if (exists && S_ISLNK(st.st_mode)) (void)::stat(output.c_str(), &st);
  if (is_stream(output, exists, st)) {
    const int fd = ::open(output.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) return failed(std::strerror(errno));
    Status written = write_all(fd, text, output);
    if (::close(fd) != 0 && written) written = failed(std::strerror(errno));
    return written;
  }
  const std::string exists_message = "--output '" + output + "' exists; it is not overwritten (remove it or choose another file)";
  if (exists) return Error{exists_message};
  std::string temp = parent_folder(output) + "/.ucudnn-export-XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) return failed(std::strerror(errno));
  const mode_t mask = ::umask(0);  // mkstemp makes 0600; a new file gets what the umask allows
  ::umask(mask);
  Status written = ::fchmod(fd, 0666 & ~mask) == 0 ? write_all(fd, text, output) : Status(failed(std::strerror(errno)));
  if (written && ::fsync(fd) != 0) written = failed(std::strerror(errno));
  if (::close(fd) != 0 && written) written = failed(std::strerror(errno));
  if (written && ::link(temp.c_str(), output.c_str()) != 0) {
    written = errno == EEXIST ? Status(Error{exists_message}) : Status(failed(std::strerror(errno)));
  }
  ::unlink(temp.c_str());
  return written;
}

int run_export(const DbOptions& options, BenchmarkDatabase& database, std::ostream& out, std::ostream& err) {
  if (!options.output.empty()) {
    const Status target = check_output(options.output, database.path());
    if (!target) return report_error(err, kExitDataError, target.message());
  }
  auto rows = database.all_rows();
  if (!rows) return report_error(err, kExitDataError, rows.message());
  const auto device = rows_of_one_device(options, std::move(rows).value());
  if (!device) return report_error(err, kExitDataError, device.message());
  const auto table = named_rows(options, *device);
  if (!table) return report_error(err, kExitDataError, table.message());
  const std::string csv = rows_to_table(*table);  // complete before anything is written
  // Rows stored by an older ucudnn may break today's table rules (a micro-batch above the
  // maximum, a name that is not UTF-8): never write a table that plan and db import refuse.
  std::istringstream reread(csv);
  const auto readable = parse_measurements_csv(reread, "exported table");
  if (!readable) {
    return report_error(err, kExitDataError,
                        "the stored rows do not make a table that plan and db import read: " + readable.message());
  }
  if (options.output.empty()) {
    out << csv;
    return kExitOk;
  }
  const Status written = write_output(options.output, csv);
  if (!written) return report_error(err, kExitDataError, written.message());
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
    json["engine_rows"] = stats->engine_rows;
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
  out << "engine rows: " << stats->engine_rows << '\n';
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
  command
      ->add_option("--database", options.database,
                   "Benchmark database file (default: the UCUDNN_DATABASE environment variable)")
      ->type_name("FILE");
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
  import->add_option("--compute-capability", options->compute_capability, "Its compute capability, e.g. 90")
      ->required();
  import->add_option("--sm-count", options->sm_count, "Its number of SMs, e.g. 132")->required();
  import->add_option("--cudnn-version", options->cudnn_version, "cudnnGetVersion() of the run, e.g. 91400")
      ->required();
  import->add_option("--cuda-version", options->cuda_version, "cudaRuntimeGetVersion() of the run, e.g. 13000")
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
  options->compute_capability_given =
      exporter->add_option("--compute-capability", options->compute_capability, "... of this compute capability");
  options->sm_count_given = exporter->add_option("--sm-count", options->sm_count, "... of this number of SMs");
  options->cudnn_version_given =
      exporter->add_option("--cudnn-version", options->cudnn_version, "... measured with this cuDNN version");
  options->cuda_version_given =
      exporter->add_option("--cuda-version", options->cuda_version, "... measured with this CUDA runtime version");

  CLI::App* stats = db->add_subcommand("stats", "Count rows, kernels, GPUs, cuDNN versions and engine rows");
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

}  // namespace ucudnn::tools
