// A network file from arbitrary bytes: parsed or refused with an error that names the file, and a
// parsed network's layers can be merged and turned into convolution keys without a crash.

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "tools/networks.h"

using namespace ucudnn;
using namespace ucudnn::tools;  // the commands and reports under test

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto network = parse_network_json(text, "fuzz.json", "fuzz");
  if (!network) {
    UCUDNN_FUZZ_CHECK(network.message().rfind("fuzz.json", 0) == 0);
    return 0;
  }
  UCUDNN_FUZZ_CHECK(!network->layers.empty());
  for (const ConvLayerSpec& layer : network->layers) {
    UCUDNN_FUZZ_CHECK(!layer.name.empty());
    UCUDNN_FUZZ_CHECK(find_layer(*network, layer.name) != nullptr);
  }
  auto merged = merge_identical_layers(network->layers);
  if (merged) UCUDNN_FUZZ_CHECK(merged->size() <= network->layers.size());
  return 0;
}
