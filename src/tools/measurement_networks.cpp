#include "tools/measurement_networks.h"

#include <algorithm>
#include <set>
#include <utility>

#include "core/conv_layer.h"
#include "core/message_text.h"

namespace ucudnn::tools {
namespace {

// What a layer's kernels are called under `naming`, one per op (an invalid layer has none).
std::vector<std::pair<ConvOp, std::string>> kernel_names(const ConvLayerSpec& layer, LayerNaming naming) {
  std::vector<std::pair<ConvOp, std::string>> names;
  for (const ConvOp op : kConvOps) {
    if (naming == LayerNaming::kByName) {
      names.emplace_back(op, layer.name);
    } else if (const auto key = to_conv_key(layer, op)) {
      names.emplace_back(op, key->layer_signature());
    }
  }
  return names;
}

}  // namespace

std::vector<std::string> builtin_networks_in(const std::vector<KernelMeasurements>& kernels, LayerNaming naming) {
  std::set<std::pair<ConvOp, std::string>> present;
  for (const KernelMeasurements& kernel : kernels) present.emplace(kernel.op, kernel.layer);
  std::vector<std::string> held;
  for (const std::string& name : builtin_network_names()) {
    const auto network = builtin_network(name);
    if (!network) continue;  // the built-ins are valid: their test says so
    const bool every_layer = std::all_of(network->layers.begin(), network->layers.end(), [&](const ConvLayerSpec& l) {
      const auto names = kernel_names(l, naming);
      return std::any_of(names.begin(), names.end(), [&](const auto& kernel) { return present.count(kernel) > 0; });
    });
    if (every_layer) held.push_back(name);
  }
  return held;
}

std::string listed_networks(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return text;
}

Expected<std::vector<KernelMeasurements>> network_kernels(std::vector<KernelMeasurements> kernels,
                                                          const Network& network,
                                                          const std::vector<std::string>& held) {
  std::set<std::string> layers;
  for (const ConvLayerSpec& layer : network.layers) layers.insert(layer.name);
  std::set<std::string> measured;
  kernels.erase(std::remove_if(kernels.begin(), kernels.end(),
                               [&](const KernelMeasurements& kernel) {
                                 if (layers.count(kernel.layer) == 0) return true;
                                 measured.insert(kernel.layer);
                                 return false;
                               }),
                kernels.end());
  const std::string name = "network '" + excerpt(network.name) + "'";
  if (kernels.empty()) {
    return Error::invalid("the measurements have no rows of the layers of " + name + "; they have " +
                          (held.empty()
                               ? "the layers of none of the built-in networks (" +
                                     listed_networks(builtin_network_names()) + "): plan them without --network"
                               : "every layer of " + listed_networks(held)));
  }
  std::size_t missing = 0;
  std::string first;
  for (const ConvLayerSpec& layer : network.layers) {
    if (measured.count(layer.name) != 0) continue;
    if (missing++ == 0) first = layer.name;
  }
  if (missing > 0) {
    return Error::invalid("the measurements lack " + std::to_string(missing) + " of the " +
                          std::to_string(network.layers.size()) + " layers of " + name + " (the first: " +
                          excerpt(first) + "): a plan of part of the network would understate its time");
  }
  return kernels;
}

}  // namespace ucudnn::tools
