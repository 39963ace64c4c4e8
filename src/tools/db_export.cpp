// `ucudnn db export`: one device's rows of the database as a benchmark table.
#include <algorithm>
#include <charconv>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/conv_layer.h"
#include "core/measurement_csv.h"
#include "store/database.h"
#include "tools/cli.h"
#include "tools/command.h"
#include "tools/db_subcommands.h"
#include "tools/table_output.h"
#include "tools/networks.h"

namespace ucudnn::tools::db_subcommands {
namespace {

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
  // A quote is fine: the layer column is never quoted, and the reader takes it as it is.
  return !name.empty() && name.find_first_of(",\r\n") == std::string::npos && name.front() != ' ' &&
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
      return Error{"layer name '" + row.layer + "' cannot be written in the table format (a comma, line break or edge blank)"};
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

}  // namespace

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
  const Status written = write_new_table("--output", options.output, csv);
  if (!written) return report_error(err, kExitDataError, written.message());
  return kExitOk;
}

}  // namespace ucudnn::tools::db_subcommands
