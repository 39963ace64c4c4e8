// `ucudnn db import`: stores a recorded benchmark table in the database.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/candidate_kinds.h"
#include "core/conv_layer.h"
#include "core/measurement_csv.h"
#include "core/message_text.h"
#include "core/units.h"
#include "core/utf8.h"
#include "store/database.h"
#include "tools/cli.h"
#include "tools/command.h"
#include "tools/db_subcommands.h"
#include "tools/networks.h"
#include "tools/new_database.h"

namespace ucudnn::tools::db_subcommands {
using ucudnn::store::utc_timestamp;

namespace {

// Measurement tables carry no determinism; cuDNN documents the atomics-based algorithms
// (backward data ALGO_0, backward filter ALGO_0 and ALGO_3) as non-deterministic. An engine's
// determinism is a note of the configuration that only cuDNN answers: not known, so not claimed
// (a caller that needs determinism never gets an imported engine row).
bool documented_deterministic(ConvOp op, const Measurement& m) {
  if (m.candidate.kind != CandidateKind::kLegacy) return false;
  const int algo = m.candidate.algorithm;
  switch (op) {
    case ConvOp::kForward: return true;
    case ConvOp::kBackwardData: return algo != 0;
    case ConvOp::kBackwardFilter: return algo != 0 && algo != 3;
  }
  return true;
}

Expected<DeviceIdentity> identity_of(const DbOptions& options) {
  if (options.gpu_name.empty() || options.gpu_name.find_first_of("\n\r") != std::string::npos) {
    return Error::invalid("--gpu-name must be a non-empty single line");
  }
  if (!is_valid_utf8(options.gpu_name)) return Error::invalid("--gpu-name is not valid UTF-8");  // names go into JSON
  const struct {
    const char* name;
    int value;
  } numbers[] = {{"--compute-capability", options.compute_capability},
                 {"--sm-count", options.sm_count},
                 {"--cudnn-version", options.cudnn_version},
                 {"--cuda-version", options.cuda_version}};
  for (const auto& number : numbers) {
    if (number.value <= 0) {
      return Error::invalid(std::string(number.name) + " must be a positive integer, not " +
                            std::to_string(number.value));
    }
  }
  return DeviceIdentity{options.gpu_name, options.compute_capability, options.sm_count, options.cudnn_version,
                        options.cuda_version};
}

// The table's rows as database rows, read a line at a time: each layer name becomes its
// convolution in the network (by its name there, or by its layer signature, what `db export`
// writes without --network). Memory: a line, a row, each kernel's signature and the table rules'
// duplicate check (core/measurement_csv.h).
class TableRows {
 public:
  TableRows(const DbOptions& options, const DeviceIdentity& identity, Network network)
      : path_(options.table), network_(std::move(network)) {
    for (const ConvLayerSpec& spec : network_.layers) {
      for (const ConvOp op : kConvOps) {
        const auto key = to_conv_key(spec, op);
        if (key) by_signature_.emplace(std::make_pair(op, key->layer_signature()), &spec);
      }
    }
    row_.identity = identity;
    row_.measured_at = utc_timestamp();
  }

  /// Hands each row to `store`, from the first line; the table's errors name its line.
  Status read(const std::function<Status(const StoredRow&)>& store) {
    signatures_.clear();
    rows_ = 0;
    return read_measurement_rows(path_, [&](const TableRules& rules, const TableRow& row) -> Status {
      if (row.kernel == signatures_.size()) {
        UCUDNN_TRY_ASSIGN(std::string signature, signature_of(rules.layer(row.kernel), row.op, row.line));
        signatures_.push_back(std::move(signature));
      }
      row_.op = row.op;
      row_.layer = signatures_[row.kernel];  // N is not in it: one per kernel
      row_.measurement = row.measurement;
      row_.measurement.deterministic = documented_deterministic(row.op, row.measurement);
      ++rows_;
      return store(row_);
    });
  }

  /// The rows the last read() handed over.
  long long rows() const { return rows_; }

 private:
  Expected<std::string> signature_of(const std::string& layer, ConvOp op, int line) const {
    const ConvLayerSpec* spec = find_layer(network_, layer);
    if (spec == nullptr) {
      const auto signature = by_signature_.find(std::make_pair(op, layer));
      if (signature != by_signature_.end()) spec = signature->second;
    }
    if (spec == nullptr) {
      return Error::invalid(path_ + ":" + std::to_string(line) + ": layer '" + excerpt(layer) +
                            "' is not a layer of network '" + excerpt(network_.name) + "'");
    }
    UCUDNN_TRY_ASSIGN(const ConvKey key, to_conv_key(*spec, op));
    return key.layer_signature();
  }

  std::string path_;
  Network network_;
  std::map<std::pair<ConvOp, std::string>, const ConvLayerSpec*> by_signature_;
  std::vector<std::string> signatures_;  ///< of each kernel of the table, in order
  StoredRow row_;                        ///< the row handed over, used again for each
  long long rows_ = 0;
};

// The table to import: --measurements FILE, or FILE alone as 0.1 wrote it; never both.
Expected<std::string> table_to_import(const DbOptions& options) {
  if (!options.table.empty() && !options.positional_table.empty()) {
    return Error::invalid("the table is given twice ('" + options.positional_table + "' and --measurements '" +
                          options.table + "'): give it once, as --measurements FILE");
  }
  if (options.table.empty() && options.positional_table.empty()) {
    return Error::invalid("--measurements FILE is required: the benchmark table (CSV) to import");
  }
  return options.table.empty() ? options.positional_table : options.table;
}

}  // namespace

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

  const auto network = resolve_network(options.network);
  if (!network) return report_error(err, kExitDataError, network.message());
  TableRows rows(options, *identity, *network);
  // The whole table is read once before the database is opened, so that a bad table creates no
  // file; then again into one transaction, which stores nothing if a line (or the file, changed
  // since) turns out bad.
  const Status readable = rows.read([](const StoredRow&) { return Status::success(); });
  if (!readable) return report_error(err, kExitDataError, readable.message());
  // A new database is made under a temporary name, and named only once the import is whole.
  std::optional<NewDatabaseFile> fresh;
  DatabaseTarget opened = *target;
  if (nothing_at(target->path)) {
    auto reserved = NewDatabaseFile::reserve(target->path);
    if (!reserved) return report_error(err, kExitDataError, reserved.message());
    fresh.emplace(std::move(reserved).value());
    report_leftovers_removed(*fresh, out);  // now: what this command removed, whatever comes after
    opened.path = fresh->temporary();
    opened.options.shown_as = target->path;
  }
  auto database = open_database(opened);
  if (!database) return report_error(err, kExitDataError, database.message());
  const auto added = (*database)->store_streamed_rows(
      [&](const std::function<Status(const StoredRow&)>& store) { return rows.read(store); }, measured_up_to);
  if (!added) return report_error(err, kExitDataError, added.message());
  if (fresh) {
    const Status named = fresh->publish(std::move(database).value());
    if (!named) return report_error(err, kExitDataError, named.message() + ": nothing imported");
  }
  out << rows.rows() << " rows read, " << *added << " new\n";
  return kExitOk;
}

}  // namespace ucudnn::tools::db_subcommands
