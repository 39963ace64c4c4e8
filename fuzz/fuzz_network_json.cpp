// A network file from arbitrary bytes: parsed or refused with an error that names the file, and a
// parsed network's layers can be merged and turned into convolution keys without a crash. The
// input that starts with '~' also goes in, after it, as a value nested 100,000 lists deep and as
// a field of a megabyte (inputs are short; the file that once crashed the commands was 200 KB):
// refused in one short line. The wrapping costs tens of milliseconds under the sanitizers, so only
// one '~' input in 256 gets it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "fuzz_check.h"
#include "tools/networks.h"

using namespace ucudnn;
using namespace ucudnn::tools;  // the commands and reports under test

namespace {

constexpr std::size_t kShortError = 400;  // bytes an error may take, whatever the input

// The input as a layer's "batch", inside `depth` lists and after `padding` bytes of a string.
void check_hostile_wrapping(const std::string& text) {
  for (const auto& [depth, padding] : {std::pair<int, std::size_t>{100'000, 0}, {1, std::size_t{1} << 20}}) {
    const std::string value = std::string(static_cast<std::size_t>(depth), '[') + "\"" +
                              std::string(padding, 'p') + text + "\"" + std::string(static_cast<std::size_t>(depth), ']');
    const std::string file = R"({"name": "n", "batch": )" + value +
                             R"(, "layers": [{"name": "c", "input": [3, 8, 8], "filters": 4, "kernel": [3, 3]}]})";
    auto network = parse_network_json(file, "fuzz.json", "fuzz");
    if (!network) UCUDNN_FUZZ_CHECK(network.message().size() < kShortError);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  static unsigned hostile_inputs = 0;
  if (size > 0 && data[0] == '~' && hostile_inputs++ % 256 == 0) check_hostile_wrapping(text.substr(1));
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
