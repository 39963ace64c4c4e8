// `ucudnn db import`: stores a recorded benchmark table in the database.
#include <cstdint>
#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/candidate_kinds.h"
#include "core/conv_layer.h"
#include "core/measurement_csv.h"
#include "core/units.h"
#include "core/utf8.h"
#include "store/database.h"
#include "tools/cli.h"
#include "tools/command.h"
#include "tools/db_subcommands.h"
#include "tools/networks.h"

namespace ucudnn::tools::db_subcommands {
using ucudnn::store::utc_timestamp;

namespace {

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

  const auto rows = rows_of_table(options, *identity);
  if (!rows) return report_error(err, kExitDataError, rows.message());
  const auto database = open_database(*target);
  if (!database) return report_error(err, kExitDataError, database.message());
  const auto added = (*database)->store_rows(*rows, measured_up_to);
  if (!added) return report_error(err, kExitDataError, added.message());
  out << rows->size() << " rows read, " << *added << " new\n";
  return kExitOk;
}

}  // namespace ucudnn::tools::db_subcommands
