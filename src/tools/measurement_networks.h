#pragma once
// Which networks a set of measurements is of, and one network's kernels out of them: what `plan`
// infers where no network is named, and how it keeps the kernels of the one that is.

#include <string>
#include <vector>

#include "core/expected.h"
#include "core/measurement_csv.h"
#include "tools/networks.h"

namespace ucudnn::tools {

/// How measurements name their layers: as the network they were measured on names them (a table),
/// or by their signature (ConvKey::layer_signature: a database read without a network).
enum class LayerNaming { kByName, kBySignature };

/// The built-in networks of which every layer has at least one kernel among `kernels`, in
/// builtin_network_names()'s order.
std::vector<std::string> builtin_networks_in(const std::vector<KernelMeasurements>& kernels, LayerNaming naming);

/// "alexnet", "alexnet and vgg16", "alexnet, resnet18 and vgg16"; "" for none.
std::string listed_networks(const std::vector<std::string>& names);

/// The kernels of `network`'s layers among `kernels` (named as the network names its layers), in
/// their order. An error where none is there (saying which built-in networks the measurements do
/// have: `held`, from builtin_networks_in) or where a layer has no kernel (naming the first and how
/// many lack one): a plan of part of a network would understate its time.
Expected<std::vector<KernelMeasurements>> network_kernels(std::vector<KernelMeasurements> kernels,
                                                          const Network& network, const std::vector<std::string>& held);

}  // namespace ucudnn::tools
