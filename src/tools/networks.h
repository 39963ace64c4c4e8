#pragma once
// Networks as lists of convolution layers: the built-in ones (for benchmarks and imports) and
// networks read from JSON files. Each distinct convolution appears once, with `count` saying how
// many times the network uses it; two layers are the same convolution when their forward keys
// have the same ConvKey::layer_signature (every descriptor field but N) and the same batch. A
// merged layer keeps the name of its first use.
//
// Built-in networks (FP32, NCHW, cross-correlation):
//
// | name       | batch | input         | convolutions (sum of counts) | layer names              |
// |------------|-------|---------------|------------------------------|--------------------------|
// | alexnet    | 256   | 3 x 227 x 227 | 5, no groups                 | alex_conv1 .. alex_conv5 |
// | resnet18   | 128   | 3 x 224 x 224 | 20 (17 + 3 projections)      | torchvision module paths |
// | resnet50   | 64    | 3 x 224 x 224 | 53 (49 + 4 projections)      | torchvision module paths |
// | vgg16      | 64    | 3 x 224 x 224 | 13                           | conv1_1 .. conv5_3       |
// | densenet40 | 256   | 3 x 32 x 32   | 39 (1 + 3 x 12 + 2)          | see below                |
//
// - alexnet: the five layers of tests/data/README.md, which the recorded table uses.
// - resnet18 / resnet50: torchvision's layout (ResNet v1.5: the stride of a bottleneck is on its
//   3x3 conv; projections are strided 1x1 convs). Names are torchvision's module paths: conv1,
//   layer2.0.conv1, layer2.0.downsample.0, ... In resnet50, layer1.0.downsample.0 has the same
//   shape as layer1.0.conv3 (64 -> 256, 1x1, 56 x 56) and is counted in it.
// - vgg16: configuration D, thirteen 3x3 convolutions with pad 1, named as in the VGG paper.
// - densenet40: CIFAR, growth rate 40, no bottlenecks, no compression: conv0 (3 -> 16), then
//   denseblockB.denselayerL.conv (3x3, pad 1, 16 + (L - 1) * 40 + (B - 1) * 480 -> 40 channels)
//   for blocks B = 1..3 of 12 layers each at 32, 16 and 8 pixels, and transition1.conv,
//   transition2.conv (1x1, keeping the channel count, before 2x2 average pooling).
//
// Network files (JSON):
//
//   {
//     "name": "mynet",
//     "batch": 32,
//     "layers": [
//       {"name": "c1", "input": [3, 224, 224], "filters": 64, "kernel": [7, 7],
//        "pad": [3, 3], "stride": [2, 2], "dilation": [1, 1], "groups": 1,
//        "data_type": "float", "layout": "NCHW", "batch": 32, "count": 1}
//     ]
//   }
//
// - "batch" (required): the mini-batch of every layer that does not give its own.
// - "name" (optional): defaults to the file name without its extension.
// - "layers" (required, not empty), each with:
//   - "name" (required, unique in the file): the name measurement files use for the layer.
//   - "input" (required): [C, H, W], or [C, D, H, W] for a 3-d convolution.
//   - "filters" (required): K, the number of output channels.
//   - "kernel" (required): [R, S] (or [T, R, S]), one size per spatial dimension.
//   - "pad", "stride", "dilation" (optional; defaults 0, 1, 1): one value per spatial dimension,
//     or a single integer for all of them.
//   - "groups" (optional, default 1): C and K must be divisible by it.
//   - "data_type" (optional, default "float"): "float", "half" or "bfloat16" (tensors and
//     filter; the compute type is always float).
//   - "layout" (optional, default "NCHW"): "NCHW" or "NHWC" (packed tensors, the filter in the
//     same format; NCDHW / NDHWC for 3-d).
//   - "batch" (optional, default the network's), "count" (optional, default 1): positive.
// Other keys are errors (a misspelt "strides" is not silently ignored). Layers with the same
// convolution are merged as above, their counts added. Every error names the file, and the
// layer where there is one. Bounded (docs/limits.md): a file above kMaxNetworkFileBytes is refused
// before it is read, a name (of the network or a layer) above kMaxLayerNameBytes when parsed.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/conv_layer.h"
#include "core/expected.h"

namespace ucudnn::tools {

/// The largest network file read, in bytes: about five times a network of a thousand layers
/// written one key per line with every key (430 KB), while parsing hostile JSON of this size stays
/// under 100 MiB (the JSON parser takes up to 40 bytes of memory per byte of input).
inline constexpr std::size_t kMaxNetworkFileBytes = 2 * 1024 * 1024;

/// A network's distinct convolutions, in order of first use.
struct Network {
  std::string name;
  int batch = 0;  ///< the mini-batch of the layers (each ConvLayerSpec has its own too)
  std::vector<ConvLayerSpec> layers;
};

/// The names builtin_network() accepts, in the order of the table above.
std::vector<std::string> builtin_network_names();

/// One of the built-in networks; an unknown name is an error listing the known ones.
Expected<Network> builtin_network(const std::string& name);

/// Reads a network file in the JSON format above.
Expected<Network> load_network_file(const std::string& path);

/// Parses the JSON text of a network file; `source_name` (the file) starts every error, and an
/// absent "name" defaults to `default_name`.
Expected<Network> parse_network_json(const std::string& text, const std::string& source_name,
                                     const std::string& default_name);

/// A built-in network if `name_or_path` is one's name (so a file named "alexnet" needs "./"),
/// else the network file at that path.
Expected<Network> resolve_network(const std::string& name_or_path);

/// The layer called `name`, or null.
const ConvLayerSpec* find_layer(const Network& network, const std::string& name);

/// Merges layers with the same batch whose forward keys have the same layer signature into the
/// first, adding their counts. Every layer must be valid (to_conv_key); the error of the first invalid one is returned.
Expected<std::vector<ConvLayerSpec>> merge_identical_layers(const std::vector<ConvLayerSpec>& layers);

// ---- What a benchmark runs of a network -------------------------------------------------------

/// The name network files give a data type: "float", "half", "bfloat16" (cudnnDataType_t 0, 2,
/// 9); any other value is named by its number.
std::string data_type_name(int data_type);
/// The data type of such a name, or none.
std::optional<int> data_type_of_name(const std::string& name);
/// "NCHW" / "NHWC", or "NCDHW" / "NDHWC" for a layer of 3 spatial dimensions.
std::string layout_name(Layout layout, std::size_t spatial_rank = 2);

/// Values imposed on every layer of a network (the benchmark's --data-type, --layout and
/// --batch); an unset one leaves each layer its own.
struct LayerOverrides {
  std::optional<int> data_type;  ///< cudnnDataType_t: 0 float, 2 half, 9 bfloat16
  std::optional<Layout> layout;
  std::optional<int> batch;      ///< positive
};

/// Imposes the overrides on every layer (and the batch on the network), then merges the layers
/// they made identical. Returns one line per option that replaced a layer's value, naming what it
/// replaced, e.g. "--data-type half overrides the network's float" ("float and bfloat16" where
/// the layers had several); none where every layer had the imposed value already. The batch
/// gives no line (the network has a default batch for that).
Expected<std::vector<std::string>> apply_overrides(const LayerOverrides& overrides, Network* network);

/// One kernel of a training step: a layer (its index in Network::layers) and an operation.
struct NetworkKernel {
  std::size_t layer = 0;
  ConvOp op = ConvOp::kForward;
};

/// The kernels a training step runs, layer by layer: forward, backward data, backward filter.
/// The input layer (layers[0], the first convolution, fed by the images) has no backward data
/// unless `input_gradient`: training never computes the gradient of its input images.
std::vector<NetworkKernel> training_kernels(const Network& network, bool input_gradient);

}  // namespace ucudnn::tools
