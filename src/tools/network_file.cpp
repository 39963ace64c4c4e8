// Network files (networks.h's JSON format): strict keys, bounded sizes, every error naming the file
// and the layer.
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/cudnn_values.h"
#include "core/input_file.h"
#include "core/measurement_csv.h"
#include "core/message_text.h"
#include "tools/networks.h"

namespace ucudnn::tools {
namespace {

using Json = nlohmann::json;

// ---- Network files ----------------------------------------------------------------------------

const char* const kLayerKeys[] = {"name",   "input",     "filters", "kernel", "pad",   "stride",
                                  "dilation", "groups", "data_type", "layout", "batch", "count"};
const char* const kNetworkKeys[] = {"name", "batch", "layers"};

template <int N>
std::optional<std::string> unknown_key(const Json& object, const char* const (&known)[N]) {
  for (const auto& item : object.items()) {
    bool found = false;
    for (const char* key : known) found = found || item.key() == key;
    if (!found) return item.key();
  }
  return std::nullopt;
}

// A JSON value as an error message quotes it: scalars and lists of scalars as written, cut short
// (core/message_text.h); deeper values by their size only. Never dump() a value of unknown depth:
// its recursion overflows the stack on a file nested 100,000 deep.
std::string quoted_json(const Json& value) {
  const bool flat = value.is_primitive() ||
                    (value.is_array() && std::all_of(value.begin(), value.end(),
                                                     [](const Json& element) { return element.is_primitive(); }));
  if (!flat) {
    const std::size_t n = value.size();
    return (value.is_array() ? "a nested list (" : "an object (") + std::to_string(n) +
           (value.is_array() ? (n == 1 ? " element)" : " elements)") : (n == 1 ? " key)" : " keys)"));
  }
  return excerpt(value.dump(-1, ' ', false, Json::error_handler_t::replace));
}

std::optional<int> as_int(const Json& value) {
  if (value.is_number_unsigned()) {
    const auto v = value.get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(INT_MAX)) return std::nullopt;
    return static_cast<int>(v);
  }
  if (value.is_number_integer()) {
    const auto v = value.get<std::int64_t>();
    if (v < INT_MIN || v > INT_MAX) return std::nullopt;
    return static_cast<int>(v);
  }
  return std::nullopt;
}

// Reads an integer of at least `min_value`; `fallback` when the key is absent, required if none.
Expected<int> read_int(const Json& object, const char* key, int min_value, std::optional<int> fallback) {
  const auto it = object.find(key);
  if (it == object.end()) {
    if (fallback) return *fallback;
    return Error::invalid(std::string("missing \"") + key + "\"");
  }
  const auto value = as_int(*it);
  if (!value || *value < min_value) {
    return Error::invalid(std::string("\"") + key + "\" must be an integer of at least " + std::to_string(min_value) +
                          ", not " + quoted_json(*it));
  }
  return *value;
}

// Reads a list of `size` integers of at least `min_value` (`size` 0: a non-empty list of any
// length); a single integer stands for `size` equal values where `scalar_ok`, and `fallback`
// fills an absent key.
Expected<std::vector<int>> read_ints(const Json& object, const char* key, std::size_t size, int min_value,
                                     bool scalar_ok, std::optional<int> fallback) {
  const std::string quoted = std::string("\"") + key + "\"";
  const auto it = object.find(key);
  if (it == object.end()) {
    if (fallback) return std::vector<int>(size, *fallback);
    return Error::invalid("missing " + quoted);
  }
  std::vector<int> values;
  if (scalar_ok && !it->is_array()) {
    const auto value = as_int(*it);
    if (value) values.assign(size, *value);
  } else if (it->is_array()) {
    for (const auto& element : *it) {
      const auto value = as_int(element);
      if (!value) break;
      values.push_back(*value);
    }
    if (values.size() != it->size()) values.clear();
  }
  const std::string expected =
      size == 0 ? "a list of integers" : "a list of " + std::to_string(size) + " integers (one per spatial dimension)";
  const std::string what = scalar_ok ? expected + " or one integer" : expected;
  if (values.empty() || (size != 0 && values.size() != size)) {
    return Error::invalid(quoted + " must be " + what + ", not " + quoted_json(*it));
  }
  for (int v : values) {
    if (v < min_value) {
      return Error::invalid(quoted + " values must be at least " + std::to_string(min_value) + ", not " +
                            quoted_json(*it));
    }
  }
  return values;
}

Expected<int> read_data_type(const Json& layer) {
  const auto it = layer.find("data_type");
  if (it == layer.end()) return 0;
  if (it->is_string()) {
    if (const auto type = data_type_of_name(it->get<std::string>())) return *type;
  }
  return Error::invalid("\"data_type\" must be \"float\", \"half\" or \"bfloat16\", not " + quoted_json(*it));
}

Expected<Layout> read_layout(const Json& layer) {
  const auto it = layer.find("layout");
  if (it == layer.end()) return Layout::kNchw;
  if (*it == "NCHW") return Layout::kNchw;
  if (*it == "NHWC") return Layout::kNhwc;
  return Error::invalid("\"layout\" must be \"NCHW\" or \"NHWC\", not " + quoted_json(*it));
}

// A name longer than tables may hold: every message that quotes a name stays short.
std::optional<std::string> name_too_long(const std::string& name) {
  if (name.size() <= kMaxLayerNameBytes) return std::nullopt;
  return "\"name\" of " + std::to_string(name.size()) + " bytes is longer than the limit of " +
         std::to_string(kMaxLayerNameBytes) + " bytes";
}

// Names are the first column of measurement files, which cannot hold commas, line breaks or
// surrounding blanks.
std::optional<std::string> name_problem(const std::string& name) {
  if (name.empty()) return "\"name\" must not be empty";
  if (const auto problem = name_too_long(name)) return problem;
  if (name.find_first_of(",\n\r") != std::string::npos) return "\"name\" must not contain commas or line breaks";
  if (name.front() == ' ' || name.front() == '\t' || name.back() == ' ' || name.back() == '\t') {
    return "\"name\" must not start or end with blanks";
  }
  return std::nullopt;
}

// cuDNN's legacy descriptors hold int strides, so every tensor must have fewer than 2^31
// elements; checking here also keeps to_conv_key's int arithmetic from overflowing.
std::optional<std::string> size_problem(const ConvLayerSpec& spec) {
  const auto fits = [](std::int64_t first, const std::vector<std::int64_t>& rest) {
    std::int64_t product = first;
    for (std::int64_t v : rest) {
      product *= v;  // both factors are at most INT_MAX: no overflow
      if (product > INT_MAX) return false;
    }
    return product <= INT_MAX;
  };
  std::vector<std::int64_t> x = {spec.channels}, w = {spec.channels / spec.groups}, y = {spec.filters};
  for (std::size_t i = 0; i < spec.spatial.size(); ++i) {
    const std::int64_t padded = std::int64_t{spec.spatial[i]} + 2 * std::int64_t{spec.pad[i]};
    const std::int64_t reach = std::int64_t{spec.dilation[i]} * (spec.filter[i] - 1) + 1;
    if (padded > INT_MAX || reach > INT_MAX) return "padded input or dilated filter too large";
    x.push_back(spec.spatial[i]);
    w.push_back(spec.filter[i]);
    y.push_back(padded >= reach ? (padded - reach) / spec.stride[i] + 1 : 1);
  }
  if (!fits(spec.batch, x) || !fits(spec.filters, w) || !fits(spec.batch, y)) {
    return "a tensor has more than 2147483647 elements (cuDNN descriptors use int strides)";
  }
  return std::nullopt;
}

// One entry of "layers"; errors without the file name.
Expected<ConvLayerSpec> parse_layer(const Json& layer, int network_batch) {
  if (!layer.is_object()) return Error::invalid("must be an object, not " + quoted_json(layer));
  if (const auto key = unknown_key(layer, kLayerKeys)) return Error::invalid("unknown key \"" + excerpt(*key) + "\"");
  ConvLayerSpec spec;
  spec.name = layer.at("name").get<std::string>();  // checked by the caller

  UCUDNN_TRY_ASSIGN(const std::vector<int> input, read_ints(layer, "input", 0, 1, false, std::nullopt));
  if (input.size() != 3 && input.size() != 4) {
    return Error::invalid("\"input\" must be [C, H, W] or [C, D, H, W], not " + quoted_json(layer.at("input")));
  }
  const std::size_t rank = input.size() - 1;
  spec.channels = input.front();
  spec.spatial.assign(input.begin() + 1, input.end());

  struct IntField {
    const char* key;
    int min_value;
    std::optional<int> fallback;
    int* out;
  };
  for (const IntField& field : {IntField{"filters", 1, std::nullopt, &spec.filters},
                                IntField{"groups", 1, 1, &spec.groups},
                                IntField{"batch", 1, network_batch, &spec.batch},
                                IntField{"count", 1, 1, &spec.count}}) {
    UCUDNN_TRY_ASSIGN(*field.out, read_int(layer, field.key, field.min_value, field.fallback));
  }
  struct ListField {
    const char* key;
    int min_value;
    bool scalar_ok;
    std::optional<int> fallback;
    std::vector<int>* out;
  };
  for (const ListField& field : {ListField{"kernel", 1, false, std::nullopt, &spec.filter},
                                 ListField{"pad", 0, true, 0, &spec.pad},
                                 ListField{"stride", 1, true, 1, &spec.stride},
                                 ListField{"dilation", 1, true, 1, &spec.dilation}}) {
    UCUDNN_TRY_ASSIGN(*field.out, read_ints(layer, field.key, rank, field.min_value, field.scalar_ok, field.fallback));
  }
  UCUDNN_TRY_ASSIGN(spec.data_type, read_data_type(layer));
  UCUDNN_TRY_ASSIGN(spec.layout, read_layout(layer));

  if (spec.channels % spec.groups != 0 || spec.filters % spec.groups != 0) {
    return Error::invalid("channels (" + std::to_string(spec.channels) + ") and filters (" +
                          std::to_string(spec.filters) + ") must be divisible by groups (" +
                          std::to_string(spec.groups) + ")");
  }
  if (const auto problem = size_problem(spec)) return Error::invalid(*problem);
  return spec;
}

Expected<Network> parse_network(const Json& root, const std::string& default_name) {
  if (!root.is_object()) return Error::invalid("the top level must be an object");
  if (const auto key = unknown_key(root, kNetworkKeys)) return Error::invalid("unknown key \"" + excerpt(*key) + "\"");
  Network network;
  network.name = default_name;
  if (const auto it = root.find("name"); it != root.end()) {
    if (!it->is_string() || it->get<std::string>().empty())
      return Error::invalid("\"name\" must be a non-empty string");
    if (const auto problem = name_too_long(it->get<std::string>())) return Error::invalid(*problem);
    network.name = it->get<std::string>();
  }
  UCUDNN_TRY_ASSIGN(network.batch, read_int(root, "batch", 1, std::nullopt));
  const auto layers = root.find("layers");
  if (layers == root.end()) return Error::invalid("missing \"layers\"");
  if (!layers->is_array() || layers->empty()) return Error::invalid("\"layers\" must be a non-empty list");

  std::set<std::string> seen;
  std::vector<ConvLayerSpec> specs;
  for (std::size_t i = 0; i < layers->size(); ++i) {
    const Json& layer = (*layers)[i];
    const std::string number = "layer " + std::to_string(i + 1);
    const auto name = layer.is_object() ? layer.find("name") : layer.end();
    if (!layer.is_object() || name == layer.end()) return Error::invalid(number + ": missing \"name\"");
    if (!name->is_string()) return Error::invalid(number + ": \"name\" must be a string, not " + quoted_json(*name));
    const std::string where = "layer '" + excerpt(name->get<std::string>()) + "': ";
    if (const auto problem = name_problem(name->get<std::string>())) return Error::invalid(number + ": " + *problem);
    if (!seen.insert(name->get<std::string>()).second) {
      return Error::invalid(where + "the name is used twice");
    }
    auto spec = parse_layer(layer, network.batch);
    if (!spec) return spec.error().prefixed(where);
    specs.push_back(std::move(spec).value());
  }
  UCUDNN_TRY_ASSIGN(network.layers, merge_identical_layers(specs));  // to_conv_key's errors name the layer
  return network;
}


}  // namespace

Expected<Network> parse_network_json(const std::string& text, const std::string& source_name,
                                     const std::string& default_name) {
  Json root;
  // JSON leaves a key given twice in one object to the reader, and nlohmann keeps the last: a
  // network whose "batch" is 8 and then 9 is refused instead, naming the key.
  std::vector<std::set<std::string>> open_objects;
  std::optional<std::string> repeated;
  const auto note_repeated_keys = [&](int, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) open_objects.emplace_back();
    if (event == Json::parse_event_t::object_end && !open_objects.empty()) open_objects.pop_back();
    if (event == Json::parse_event_t::key && !open_objects.empty() && !repeated &&
        !open_objects.back().insert(parsed.get<std::string>()).second) {
      repeated = parsed.get<std::string>();
    }
    return true;
  };
  try {
    root = Json::parse(text, note_repeated_keys);
  } catch (const Json::exception& e) {
    // nlohmann quotes the last token it read, which can be a whole megabyte-long string.
    return Error::invalid(source_name + ": invalid JSON: " + excerpt(e.what(), 160));
  }
  if (repeated) {
    return Error::invalid(source_name + ": the key \"" + excerpt(*repeated) +
                          "\" is given twice in one object: give it once (JSON keeps only one of them)");
  }
  auto network = parse_network(root, default_name);
  if (!network) return network.error().prefixed(source_name + ": ");
  return network;
}

Expected<Network> load_network_file(const std::string& path) {
  UCUDNN_TRY(check_input_file(path, "network file"));
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::invalid("cannot open network file '" + path + "': " + std::strerror(errno));
  // At most one byte past the limit is read, whatever the file's size says (it may grow).
  const auto too_large = [&] {
    return Error::invalid("network file '" + path + "' is larger than " +
                          std::to_string(kMaxNetworkFileBytes / (1024 * 1024)) + " MiB (the limit of a network file)");
  };
  std::error_code size_unknown;
  const auto size = std::filesystem::file_size(path, size_unknown);
  if (!size_unknown && size > kMaxNetworkFileBytes) return too_large();
  std::string text;
  char chunk[64 * 1024];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxNetworkFileBytes) return too_large();
  }
  if (in.bad()) return Error::invalid("network file '" + path + "': read error");
  return parse_network_json(text, path, std::filesystem::path(path).stem().string());
}

}  // namespace ucudnn::tools
