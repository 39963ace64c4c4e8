#include "tools/database_table.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/conv_layer.h"
#include "core/message_text.h"
#include "tools/networks.h"

namespace ucudnn::tools {
namespace {
using ucudnn::store::RowReader;
using ucudnn::store::StoredLayer;
using ucudnn::store::StoredRow;

// The shortest decimal text that reads back as the same double, so exports round-trip.
std::string shortest_double(double value) {
  char text[64];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

// The one device identity that the choice selects among those the database has rows of (listed in
// order); with several left, an error that lists them and names the options (the table format has
// no device columns, and one table holding several devices' rows of a layer would hold the same
// row twice).
Expected<DeviceIdentity> one_device(const DeviceChoice& choice, const std::vector<DeviceIdentity>& identities) {
  if (identities.empty()) return Error::invalid("the database holds no rows");
  auto selected = [&](const DeviceIdentity& id) {
    return (!choice.gpu_name || id.gpu_name == *choice.gpu_name) &&
           (!choice.compute_capability || id.compute_capability == *choice.compute_capability) &&
           (!choice.sm_count || id.sm_count == *choice.sm_count) &&
           (!choice.cudnn_version || id.cudnn_version == *choice.cudnn_version) &&
           (!choice.cuda_version || id.cuda_runtime_version == *choice.cuda_version);
  };
  std::vector<DeviceIdentity> chosen;
  std::copy_if(identities.begin(), identities.end(), std::back_inserter(chosen), selected);
  auto listed = [](const std::vector<DeviceIdentity>& list) {
    std::string text;
    for (const DeviceIdentity& id : list) text += (text.empty() ? "" : "; ") + id.to_string();
    return text;
  };
  if (chosen.empty()) {
    return Error::invalid(std::string("no rows of the device selected by ") + kDeviceOptions +
                          "; the database holds rows of: " + listed(identities));
  }
  if (chosen.size() > 1) {
    return Error::invalid("the database holds rows of " + std::to_string(chosen.size()) + " devices (" +
                          listed(chosen) + "); a table holds one device's rows: choose one with " + kDeviceOptions);
  }
  return chosen.front();
}

// A layer name the table format can hold: its reader splits at commas and trims blanks.
bool table_safe(const std::string& name) {
  // A quote is fine: the layer column is never quoted, and the reader takes it as it is.
  return !name.empty() && name.find_first_of(",\r\n") == std::string::npos && name.front() != ' ' &&
         name.back() != ' ' && name.front() != '\t' && name.back() != '\t' && name != "layer";
}

// One kernel of the table: a stored layer's rows of one op, under the name the table gives them.
struct TableKernel {
  std::size_t order = 0;  ///< the layer's place in the network (0 without one)
  std::string name;
  ConvOp op = ConvOp::kForward;
  std::string signature;  ///< the layer as stored (ConvKey::layer_signature)
};

// The table's kernels, in the table's order (by the layer's place in the network, name, op), named
// by the network's layer names (a layer shape the network has several times is written once per
// name, as a table measured on the network has it), else by the layer signatures.
Expected<std::vector<TableKernel>> table_kernels(const TableRequest& request, const std::vector<StoredLayer>& layers) {
  std::vector<TableKernel> kernels;
  if (request.network.empty()) {
    for (const StoredLayer& layer : layers) kernels.push_back(TableKernel{0, layer.layer, layer.op, layer.layer});
  } else {
    UCUDNN_TRY_ASSIGN(const auto network, resolve_network(request.network));
    std::map<std::pair<ConvOp, std::string>, std::vector<std::pair<std::size_t, std::string>>> names;
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
      for (const ConvOp op : kConvOps) {
        const auto key = to_conv_key(network.layers[i], op);
        if (key) names[{op, key->layer_signature()}].emplace_back(i, network.layers[i].name);
      }
    }
    long long unknown = 0;
    std::string example;
    for (const StoredLayer& layer : layers) {
      const auto found = names.find({layer.op, layer.layer});
      if (found == names.end()) {
        if (unknown == 0) example = std::string(short_name(layer.op)) + " " + layer.layer;
        unknown += layer.rows;
        continue;
      }
      for (const auto& [order, name] : found->second)
        kernels.push_back(TableKernel{order, name, layer.op, layer.layer});
    }
    if (unknown > 0 && request.other_layers == OtherLayers::kRefused) {
      return Error::invalid(std::to_string(unknown) + " rows are of layers that network '" + excerpt(network.name) +
                            "' does not have (the first: " + excerpt(example, 160) +
                            "); export without --network to name layers by their signature");
    }
  }
  for (const TableKernel& kernel : kernels) {
    if (!table_safe(kernel.name)) {
      return Error::invalid("layer name '" + excerpt(kernel.name) +
                            "' cannot be written in the table format (a comma, line break or edge blank)");
    }
  }
  std::stable_sort(kernels.begin(), kernels.end(), [](const TableKernel& a, const TableKernel& b) {
    return std::tie(a.order, a.name, a.op) < std::tie(b.order, b.name, b.op);
  });
  return kernels;
}

constexpr char kHeader[] = "layer,op,microbatch,algo,math_type,time_ms,workspace_bytes,engine,host_ms";

// One row as a line of the table format of tests/data/README.md (without its line break).
void format_line(const TableKernel& kernel, const Measurement& m, std::string* line) {
  *line = kernel.name;
  *line += ',';
  *line += short_name(kernel.op);
  for (const std::string& field :
       {std::to_string(m.micro_batch), std::to_string(m.candidate.algorithm), std::to_string(m.candidate.math_type),
        shortest_double(m.time_ms), std::to_string(m.workspace_bytes), csv_engine_field(m.candidate.engine_id),
        shortest_double(m.host_ms)}) {
    *line += ',';
    *line += field;
  }
}

}  // namespace

// Rows stored by an older ucudnn may break today's table rules (a micro-batch above the maximum, a
// name that is not UTF-8): each line is checked as plan and db import will read it, and the first
// that fails stops the table before anything is shown.
Status write_database_table(RowReader& reader, const TableRequest& request,
                            const std::function<Status(std::string_view line)>& line_out) {
  UCUDNN_TRY_ASSIGN(const auto identities, reader.identities());
  UCUDNN_TRY_ASSIGN(const DeviceIdentity device, one_device(request.device, identities));
  UCUDNN_TRY_ASSIGN(const auto layers, reader.layers(device));
  UCUDNN_TRY_ASSIGN(const auto kernels, table_kernels(request, layers));
  // Each kernel's rows come together: the rules keep one kernel's.
  TableRules rules("exported table", RowMemory::kLatestKernel);
  std::string line = kHeader;
  const auto checked_and_written = [&]() -> Status {
    const auto row = rules.check_line(line);
    if (!row) return row.error().prefixed("the stored rows do not make a table that plan and db import read: ");
    line += '\n';
    return line_out(line);
  };
  UCUDNN_TRY(checked_and_written());
  for (const TableKernel& kernel : kernels) {
    UCUDNN_TRY(reader.for_each_row(device, kernel.op, kernel.signature, [&](const StoredRow& row) -> Status {
      format_line(kernel, row.measurement, &line);
      return checked_and_written();
    }));
  }
  return Status::success();
}

Expected<std::vector<KernelMeasurements>> read_database_table(store::BenchmarkDatabase& database,
                                                              const TableRequest& request) {
  std::string text;
  std::size_t lines = 0;
  UCUDNN_TRY(database.read_rows([&](RowReader& reader) {
    text.clear();  // a read retried after a lock starts over
    lines = 0;
    return write_database_table(reader, request, [&](std::string_view line) {
      text += line;
      ++lines;
      return Status::success();
    });
  }));
  // Every row left out (another network's): no kernel, which the caller names better than a
  // table reader would ("no measurement rows").
  if (lines <= 1) return std::vector<KernelMeasurements>{};
  std::istringstream in(text);
  return parse_measurements_csv(in, "benchmark database '" + database.path() + "'");
}

}  // namespace ucudnn::tools
