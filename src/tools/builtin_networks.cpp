// The built-in networks (networks.h's table) and how a name is resolved: built-in first, then a
// network file.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "tools/networks.h"

namespace ucudnn::tools {
namespace {

// ---- Built-in networks ------------------------------------------------------------------------

// Collects the square 2-d FP32 NCHW convolutions of a network at one batch.
class NetworkBuilder {
 public:
  NetworkBuilder(std::string name, int batch) : batch_(batch) {
    network_.name = std::move(name);
    network_.batch = batch;
  }

  /// Adds a convolution of a size x size input; returns the output size.
  int conv(const std::string& name, int channels, int size, int filters, int kernel, int pad, int stride) {
    ConvLayerSpec spec;
    spec.name = name;
    spec.batch = batch_;
    spec.channels = channels;
    spec.spatial = {size, size};
    spec.filters = filters;
    spec.filter = {kernel, kernel};
    spec.pad = {pad, pad};
    spec.stride = {stride, stride};
    spec.dilation = {1, 1};
    network_.layers.push_back(spec);
    return conv_output_size(size, kernel, pad, stride, 1);
  }

  Expected<Network> finish() {
    auto merged = merge_identical_layers(network_.layers);
    if (!merged) return merged.error().prefixed("built-in network '" + network_.name + "': ");
    network_.layers = std::move(merged).value();
    return network_;
  }

 private:
  int batch_;
  Network network_;
};

Expected<Network> alexnet() {
  NetworkBuilder net("alexnet", 256);
  // The table of tests/data/README.md (single-tower AlexNet, no groups; pooling between).
  net.conv("alex_conv1", 3, 227, 96, 11, 0, 4);
  net.conv("alex_conv2", 96, 27, 256, 5, 2, 1);
  net.conv("alex_conv3", 256, 13, 384, 3, 1, 1);
  net.conv("alex_conv4", 384, 13, 384, 3, 1, 1);
  net.conv("alex_conv5", 384, 13, 256, 3, 1, 1);
  return net.finish();
}

// torchvision's ResNet: basic blocks (two 3x3) or v1.5 bottlenecks (1x1, strided 3x3, 1x1 x4).
Expected<Network> resnet(const std::string& name, int batch, const int (&blocks)[4], bool bottleneck) {
  NetworkBuilder net(name, batch);
  int size = net.conv("conv1", 3, 224, 64, 7, 3, 2);
  size = conv_output_size(size, 3, 1, 2, 1);  // 3x3/2 max pooling
  int channels = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const int planes = 64 << stage;
    const int out_channels = bottleneck ? planes * 4 : planes;
    for (int block = 0; block < blocks[stage]; ++block) {
      const std::string prefix = "layer" + std::to_string(stage + 1) + "." + std::to_string(block) + ".";
      const int stride = stage > 0 && block == 0 ? 2 : 1;
      int out = 0;
      if (bottleneck) {
        net.conv(prefix + "conv1", channels, size, planes, 1, 0, 1);
        out = net.conv(prefix + "conv2", planes, size, planes, 3, 1, stride);
        net.conv(prefix + "conv3", planes, out, out_channels, 1, 0, 1);
      } else {
        out = net.conv(prefix + "conv1", channels, size, planes, 3, 1, stride);
        net.conv(prefix + "conv2", planes, out, planes, 3, 1, 1);
      }
      if (stride != 1 || channels != out_channels) {
        net.conv(prefix + "downsample.0", channels, size, out_channels, 1, 0, stride);
      }
      channels = out_channels;
      size = out;
    }
  }
  return net.finish();
}

// VGG configuration D: 3x3 convolutions with pad 1, 2x2 max pooling after each group.
Expected<Network> vgg16() {
  NetworkBuilder net("vgg16", 64);
  const int group_sizes[] = {2, 2, 3, 3, 3};
  const int group_filters[] = {64, 128, 256, 512, 512};
  int channels = 3;
  int size = 224;
  for (int group = 0; group < 5; ++group) {
    for (int i = 0; i < group_sizes[group]; ++i) {
      const std::string name = "conv" + std::to_string(group + 1) + "_" + std::to_string(i + 1);
      net.conv(name, channels, size, group_filters[group], 3, 1, 1);
      channels = group_filters[group];
    }
    size /= 2;
  }
  return net.finish();
}

// DenseNet-40 for CIFAR (k = 40), as in the μ-cuDNN paper: every dense layer concatenates its
// 40 new channels to its input; transitions keep the channel count and halve the size.
Expected<Network> densenet40() {
  constexpr int kGrowth = 40;
  constexpr int kLayersPerBlock = 12;
  NetworkBuilder net("densenet40", 256);
  int channels = 16;
  int size = net.conv("conv0", 3, 32, channels, 3, 1, 1);
  for (int block = 1; block <= 3; ++block) {
    for (int layer = 1; layer <= kLayersPerBlock; ++layer) {
      const std::string name =
          "denseblock" + std::to_string(block) + ".denselayer" + std::to_string(layer) + ".conv";
      net.conv(name, channels, size, kGrowth, 3, 1, 1);
      channels += kGrowth;
    }
    if (block < 3) {
      net.conv("transition" + std::to_string(block) + ".conv", channels, size, channels, 1, 0, 1);
      size /= 2;  // 2x2 average pooling
    }
  }
  return net.finish();
}

const std::vector<std::pair<std::string, Expected<Network> (*)()>>& builtins() {
  static const std::vector<std::pair<std::string, Expected<Network> (*)()>> table = {
      {"alexnet", alexnet},
      {"resnet18", [] { return resnet("resnet18", 128, {2, 2, 2, 2}, false); }},
      {"resnet50", [] { return resnet("resnet50", 64, {3, 4, 6, 3}, true); }},
      {"vgg16", vgg16},
      {"densenet40", densenet40},
  };
  return table;
}

std::string known_names() {
  std::string known;
  for (const auto& entry : builtins()) known += (known.empty() ? "" : ", ") + entry.first;
  return known;
}


}  // namespace

std::vector<std::string> builtin_network_names() {
  std::vector<std::string> names;
  for (const auto& entry : builtins()) names.push_back(entry.first);
  return names;
}

Expected<Network> builtin_network(const std::string& name) {
  for (const auto& entry : builtins()) {
    if (entry.first == name) return entry.second();
  }
  return Error::invalid("unknown built-in network '" + name + "' (known: " + known_names() + ")");
}

Expected<Network> resolve_network(const std::string& name_or_path) {
  for (const auto& entry : builtins()) {
    if (entry.first == name_or_path) return entry.second();
  }
  std::error_code ignored;
  if (!std::filesystem::exists(name_or_path, ignored)) {
    return Error::invalid("network '" + name_or_path + "' is neither a built-in network (" + known_names() +
                          ") nor a file");
  }
  return load_network_file(name_or_path);
}

}  // namespace ucudnn::tools
