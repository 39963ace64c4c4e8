#include "tools/plan_input.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <utility>

#include "core/input_file.h"
#include "core/message_text.h"
#include "store/database.h"
#include "tools/cli_suggest.h"
#include "tools/measurement_networks.h"
#include "tools/networks.h"

namespace ucudnn::tools {
namespace {
using ucudnn::store::BenchmarkDatabase;

bool is_builtin_network(const std::string& word) {
  const auto names = builtin_network_names();
  return std::find(names.begin(), names.end(), word) != names.end();
}

// A network file (JSON) starts with '{' after any blanks; a table never does. Only a regular file
// is looked into: a FIFO would block the open.
bool is_network_file(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return false;
  std::ifstream in(path, std::ios::binary);
  char c = 0;
  for (std::size_t read = 0; read < kContentHeadBytes && in.get(c); ++read) {
    if (!std::isspace(static_cast<unsigned char>(c))) return c == '{';
  }
  return false;
}

// Where a word names nothing: the closest built-in network, if it looks like a typo of one.
std::string neither_file_nor_network(const std::string& word) {
  const std::string message = "'" + excerpt(word) + "' is neither a file nor a built-in network (" +
                              listed_networks(builtin_network_names()) + ")";
  for (const auto& name : builtin_network_names()) {
    if (edit_distance(word, name) <= 2) return message + ": did you mean " + name + "?";
  }
  return message;
}

// Sets `*slot` to `value` where it is empty; a second, different value is an error naming both.
Status named_once(std::string* slot, const std::string& value, const char* what) {
  if (slot->empty() || *slot == value) {
    *slot = value;
    return Status::success();
  }
  return Error::invalid(std::string(what) + " given twice ('" + excerpt(*slot) + "' and '" + excerpt(value) +
                        "'): plan takes one");
}

bool chooses_a_device(const DeviceChoice& device) {
  return device.gpu_name || device.compute_capability || device.sm_count || device.cudnn_version || device.cuda_version;
}

Expected<PlanInput> read_table(const PlanSources& sources, const DeviceChoice& device) {
  if (chooses_a_device(device)) {
    return Error::invalid(std::string(kDeviceOptions) + " choose among a database's devices; '" +
                          excerpt(sources.measurements) + "' is a benchmark table, of one device");
  }
  PlanInput input;
  UCUDNN_TRY_ASSIGN(input.kernels, read_measurements_csv(sources.measurements));
  if (sources.network.empty()) return input;
  UCUDNN_TRY_ASSIGN(const Network network, resolve_network(sources.network));
  const auto held = builtin_networks_in(input.kernels, LayerNaming::kByName);
  UCUDNN_TRY_ASSIGN(input.kernels, network_kernels(std::move(input.kernels), network, held));
  input.network = network.name;
  return input;
}

// A database's rows are keyed by layer shape, not name: read by shape, then again as the network
// given (or the one built-in network those shapes make) names them.
Expected<PlanInput> read_database(const PlanSources& sources, const DeviceChoice& device) {
  BenchmarkDatabase::Options options;
  options.read_only = true;
  options.create = false;
  UCUDNN_TRY_ASSIGN(auto database, BenchmarkDatabase::open(sources.measurements, options));
  const std::string named = "benchmark database '" + sources.measurements + "'";
  TableRequest request{device, "", OtherLayers::kLeftOut};
  UCUDNN_TRY_ASSIGN(const auto by_shape, read_database_table(*database, request));
  const auto held = builtin_networks_in(by_shape, LayerNaming::kBySignature);
  request.network = sources.network;
  if (request.network.empty()) {
    if (held.empty()) {
      return Error::invalid(named + " holds no built-in network's layers (" + listed_networks(builtin_network_names()) +
                            "): name the network its rows are of with --network NET (a network JSON file)");
    }
    if (held.size() > 1) {
      return Error::invalid(named + " holds the layers of " + listed_networks(held) +
                            ": choose the network to plan with --network NET");
    }
    request.network = held.front();
  }
  UCUDNN_TRY_ASSIGN(const Network network, resolve_network(request.network));
  PlanInput input;
  input.database = true;
  UCUDNN_TRY_ASSIGN(input.kernels, read_database_table(*database, request));
  UCUDNN_TRY_ASSIGN(input.kernels, network_kernels(std::move(input.kernels), network, held));
  input.network = network.name;
  return input;
}

}  // namespace

Expected<PlanSources> plan_sources(const std::vector<std::string>& words, const std::string& measurements_option,
                                   const std::string& network_option, const std::string& database_setting) {
  PlanSources sources;
  for (const std::string& word : words) {
    std::error_code error;
    const bool exists = std::filesystem::exists(word, error);
    const bool looks_like_path = word.find_first_of("/.") != std::string::npos;
    if (!exists && is_builtin_network(word)) {
      UCUDNN_TRY(named_once(&sources.network, word, "a network"));
    } else if (exists && is_network_file(word)) {
      UCUDNN_TRY(named_once(&sources.network, word, "a network"));
    } else if (exists || looks_like_path) {
      UCUDNN_TRY(named_once(&sources.measurements, word, "measurements"));
    } else {
      return Error::invalid(neither_file_nor_network(word));
    }
  }
  if (!measurements_option.empty()) UCUDNN_TRY(named_once(&sources.measurements, measurements_option, "measurements"));
  if (!network_option.empty()) UCUDNN_TRY(named_once(&sources.network, network_option, "a network"));
  if (sources.measurements.empty()) sources.measurements = database_setting;
  if (sources.measurements.empty()) {
    const std::string file = "FILE a benchmark table (CSV) or a ucudnn database";
    if (!sources.network.empty()) {
      const std::string& net = sources.network;
      return Error::invalid("plan " + net + " needs measurements: ucudnn plan FILE --network " + net + ", " + file +
                            " (`ucudnn bench --network " + net +
                            " --database FILE` makes one on a GPU); or set UCUDNN_DATABASE");
    }
    return Error::invalid("plan needs measurements: ucudnn plan FILE, " + file +
                          " (the recorded tests/data/h100-alexnet-b256-fp32.csv is one); or set UCUDNN_DATABASE");
  }
  return sources;
}

Expected<PlanInput> read_plan_input(const PlanSources& sources, const DeviceChoice& device) {
  const std::string& path = sources.measurements;
  UCUDNN_TRY(check_input_file(path, "measurements file"));
  const std::string kind = binary_file_kind(path);
  if (kind == kSqliteDatabaseKind) return read_database(sources, device);
  if (!kind.empty()) {
    return Error::invalid("measurements file '" + path + "' is " + kind +
                          "; plan reads a benchmark table (CSV text, the format of tests/data/README.md) or a ucudnn "
                          "database (SQLite)");
  }
  return read_table(sources, device);
}

}  // namespace ucudnn::tools
