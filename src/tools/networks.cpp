// What every network shares, wherever it came from: identical layers merged, names of data types
// and layouts, options that override layers, and the kernels a training step runs. Built-in
// networks: builtin_networks.cpp; network files: network_file.cpp.
#include "tools/networks.h"

#include <algorithm>
#include <climits>
#include <map>
#include <optional>

#include "core/cudnn_values.h"
#include "core/message_text.h"

namespace ucudnn::tools {

Expected<std::vector<ConvLayerSpec>> merge_identical_layers(const std::vector<ConvLayerSpec>& layers) {
  std::vector<ConvLayerSpec> merged;
  std::map<std::string, std::size_t> index;  // layer signature -> position in `merged`
  for (const ConvLayerSpec& layer : layers) {
    UCUDNN_TRY_ASSIGN(const ConvKey key, to_conv_key(layer, ConvOp::kForward));
    // The batch is not in the signature, but layers at different batches are different work.
    const std::string signature = std::to_string(layer.batch) + " " + key.layer_signature();
    const auto found = index.find(signature);
    if (found == index.end()) {
      index.emplace(signature, merged.size());
      merged.push_back(layer);
    } else {
      ConvLayerSpec& first = merged[found->second];
      if (layer.count > INT_MAX - first.count) {
        return Error::invalid("layer '" + excerpt(layer.name) + "' is the same convolution as layer '" +
                              excerpt(first.name) + "', and their counts add up to more than " +
                              std::to_string(INT_MAX));
      }
      first.count += layer.count;
    }
  }
  return merged;
}

std::string data_type_name(int data_type) {
  switch (data_type) {
    case cudnn_values::kDataFloat: return "float";
    case cudnn_values::kDataHalf: return "half";
    case cudnn_values::kDataBfloat16: return "bfloat16";
    default: return "data type " + std::to_string(data_type);
  }
}

std::optional<int> data_type_of_name(const std::string& name) {
  for (int type : {cudnn_values::kDataFloat, cudnn_values::kDataHalf, cudnn_values::kDataBfloat16}) {
    if (data_type_name(type) == name) return type;
  }
  return std::nullopt;
}

std::string layout_name(Layout layout, std::size_t spatial_rank) {
  const bool channels_last = layout == Layout::kNhwc;
  if (spatial_rank == 3) return channels_last ? "NDHWC" : "NCDHW";
  return channels_last ? "NHWC" : "NCHW";
}

namespace {

// "a", "a and b", "a, b and c".
std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return out;
}

// "OPTION VALUE overrides the network's A and B", or nothing where no layer differs. `name_of`
// names a layer's value; the values are named in the order of the layers.
template <typename Value, typename NameOf>
void note_override(const std::string& option, const Value& imposed, const std::vector<ConvLayerSpec>& layers,
                   Value ConvLayerSpec::*field, NameOf name_of, std::vector<std::string>* notes) {
  std::vector<std::string> replaced;
  for (const ConvLayerSpec& layer : layers) {
    if (layer.*field == imposed) continue;
    const std::string name = name_of(layer.*field);
    if (std::find(replaced.begin(), replaced.end(), name) == replaced.end()) replaced.push_back(name);
  }
  if (!replaced.empty()) notes->push_back(option + " " + name_of(imposed) + " overrides the network's " + joined(replaced));
}

}  // namespace

Expected<std::vector<std::string>> apply_overrides(const LayerOverrides& overrides, Network* network) {
  std::vector<std::string> notes;
  if (overrides.batch && *overrides.batch <= 0) return Error::invalid("the batch must be positive");
  if (overrides.data_type) {
    if (!data_type_of_name(data_type_name(*overrides.data_type))) {
      return Error::invalid(data_type_name(*overrides.data_type) + " is not float, half or bfloat16");
    }
    note_override("--data-type", *overrides.data_type, network->layers, &ConvLayerSpec::data_type,
                  [](int type) { return data_type_name(type); }, &notes);
  }
  if (overrides.layout) {
    note_override("--layout", *overrides.layout, network->layers, &ConvLayerSpec::layout,
                  [](Layout layout) { return layout_name(layout); }, &notes);
  }
  for (ConvLayerSpec& layer : network->layers) {
    if (overrides.data_type) layer.data_type = *overrides.data_type;
    if (overrides.layout) layer.layout = *overrides.layout;
    if (overrides.batch) layer.batch = *overrides.batch;
  }
  if (overrides.batch) network->batch = *overrides.batch;
  UCUDNN_TRY_ASSIGN(network->layers, merge_identical_layers(network->layers));
  return notes;
}

std::vector<NetworkKernel> training_kernels(const Network& network, bool input_gradient) {
  std::vector<NetworkKernel> kernels;
  for (std::size_t layer = 0; layer < network.layers.size(); ++layer) {
    for (ConvOp op : kConvOps) {
      if (layer == 0 && op == ConvOp::kBackwardData && !input_gradient) continue;
      kernels.push_back(NetworkKernel{layer, op});
    }
  }
  return kernels;
}

const ConvLayerSpec* find_layer(const Network& network, const std::string& name) {
  for (const ConvLayerSpec& layer : network.layers) {
    if (layer.name == name) return &layer;
  }
  return nullptr;
}

}  // namespace ucudnn::tools
