// Built-in networks and network files: shapes, counts, merging, and keys that agree with the
// keys cuDNN's own descriptors give (descriptor calls need no GPU).

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "caller_descriptors.h"
#include "core/conv_layer.h"
#include "core/measurement_csv.h"
#include "test_helpers.h"
#include "tools/networks.h"

namespace ucudnn {
using tools::apply_overrides;
using tools::builtin_network;
using tools::builtin_network_names;
using tools::data_type_name;
using tools::data_type_of_name;
using tools::find_layer;
using tools::LayerOverrides;
using tools::layout_name;
using tools::load_network_file;
using tools::Network;
using tools::NetworkKernel;
using tools::parse_network_json;
using tools::resolve_network;
using tools::training_kernels;
namespace {

Network network(const std::string& name) {
  auto result = builtin_network(name);
  EXPECT_TRUE(result.ok()) << result.message();
  return result.ok() ? std::move(result).value() : Network{};
}

const ConvLayerSpec& layer(const Network& net, const std::string& name) {
  const ConvLayerSpec* spec = find_layer(net, name);
  if (spec == nullptr) throw std::runtime_error(net.name + " has no layer " + name);
  return *spec;
}

int total_count(const Network& net) {
  return std::accumulate(net.layers.begin(), net.layers.end(), 0,
                         [](int sum, const ConvLayerSpec& spec) { return sum + spec.count; });
}

// The shape of a square 2-d layer, for compact expectations.
struct Shape {
  int channels, size, filters, kernel, pad, stride, count;
};

void expect_shape(const Network& net, const std::string& name, const Shape& s) {
  SCOPED_TRACE(net.name + " " + name);
  const ConvLayerSpec& spec = layer(net, name);
  EXPECT_EQ(spec.batch, net.batch);
  EXPECT_EQ(spec.channels, s.channels);
  EXPECT_EQ(spec.spatial, (std::vector<int>{s.size, s.size}));
  EXPECT_EQ(spec.filters, s.filters);
  EXPECT_EQ(spec.filter, (std::vector<int>{s.kernel, s.kernel}));
  EXPECT_EQ(spec.pad, (std::vector<int>{s.pad, s.pad}));
  EXPECT_EQ(spec.stride, (std::vector<int>{s.stride, s.stride}));
  EXPECT_EQ(spec.dilation, (std::vector<int>{1, 1}));
  EXPECT_EQ(spec.groups, 1);
  EXPECT_EQ(spec.data_type, 0);
  EXPECT_EQ(spec.layout, Layout::kNchw);
  EXPECT_EQ(spec.count, s.count);
}

// ---- Keys from real cuDNN descriptors ---------------------------------------------------------

cudnnTensorFormat_t format_of(Layout layout) {
  return layout == Layout::kNhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
}

// Describes the layer to cuDNN through the N-d calls (the 4-d ones are test_conv_key's) and
// reads the key back the way the library reads a caller's descriptors.
ConvKey key_from_cudnn(const ConvLayerSpec& spec, ConvOp op) {
  const auto type = static_cast<cudnnDataType_t>(spec.data_type);
  const int rank = static_cast<int>(spec.spatial.size()) + 2;
  std::vector<int> x_dims = {spec.batch, spec.channels};
  std::vector<int> w_dims = {spec.filters, spec.channels / spec.groups};
  x_dims.insert(x_dims.end(), spec.spatial.begin(), spec.spatial.end());
  w_dims.insert(w_dims.end(), spec.filter.begin(), spec.filter.end());

  testing::CallerDescriptors d;
  EXPECT_EQ(cudnnSetTensorNdDescriptorEx(d.x, format_of(spec.layout), type, rank, x_dims.data()), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetFilterNdDescriptor(d.w, type, format_of(spec.layout), rank, w_dims.data()), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetConvolutionNdDescriptor(d.conv, rank - 2, spec.pad.data(), spec.stride.data(), spec.dilation.data(),
                                            CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetConvolutionGroupCount(d.conv, spec.groups), CUDNN_STATUS_SUCCESS);
  std::vector<int> y_dims(rank);
  EXPECT_EQ(cudnnGetConvolutionNdForwardOutputDim(d.conv, d.x, d.w, rank, y_dims.data()), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetTensorNdDescriptorEx(d.y, format_of(spec.layout), type, rank, y_dims.data()), CUDNN_STATUS_SUCCESS);
  return d.key(op);
}

void expect_cudnn_keys(const ConvLayerSpec& spec) {
  for (ConvOp op : {ConvOp::kForward, ConvOp::kBackwardData, ConvOp::kBackwardFilter}) {
    SCOPED_TRACE(spec.name + " " + short_name(op));
    const auto key = to_conv_key(spec, op);
    ASSERT_TRUE(key.ok()) << key.message();
    const ConvKey expected = key_from_cudnn(spec, op);
    EXPECT_EQ(*key, expected) << key->to_string() << "\n" << expected.to_string();
    EXPECT_EQ(key->layer_signature(), expected.layer_signature());
  }
}

// ---- Network files ----------------------------------------------------------------------------

// A one-layer network file: `layer_fields` are the layer's keys besides its name.
std::string one_layer_json(const std::string& layer_fields) {
  return R"({"name": "net", "batch": 8, "layers": [{"name": "c1", )" + layer_fields + "}]}";
}

Network parsed(const std::string& json) {
  auto result = parse_network_json(json, "net.json", "net");
  EXPECT_TRUE(result.ok()) << result.message();
  return result.ok() ? std::move(result).value() : Network{};
}

// A parse error that starts with the file name and contains each of `details`.
void expect_json_error(const std::string& json, const std::vector<std::string>& details) {
  SCOPED_TRACE(json);
  const auto result = parse_network_json(json, "dir/net.json", "net");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.message().rfind("dir/net.json: ", 0), 0u) << result.message();
  for (const auto& detail : details) EXPECT_NE(result.message().find(detail), std::string::npos) << result.message();
}

// ---- Built-in networks ------------------------------------------------------------------------

TEST(BuiltinNetworks, NamesAndWellFormedLayers) {
  EXPECT_EQ(builtin_network_names(),
            (std::vector<std::string>{"alexnet", "resnet18", "resnet50", "vgg16", "densenet40"}));
  for (const auto& name : builtin_network_names()) {
    SCOPED_TRACE(name);
    const Network net = network(name);
    EXPECT_EQ(net.name, name);
    std::set<std::string> names, signatures;
    for (const ConvLayerSpec& spec : net.layers) {
      EXPECT_EQ(spec.batch, net.batch) << spec.name;
      EXPECT_GE(spec.count, 1) << spec.name;
      EXPECT_TRUE(names.insert(spec.name).second) << "duplicate name " << spec.name;
      for (ConvOp op : {ConvOp::kForward, ConvOp::kBackwardData, ConvOp::kBackwardFilter}) {
        const auto key = to_conv_key(spec, op);
        ASSERT_TRUE(key.ok()) << key.message();
        if (op == ConvOp::kForward) {
          EXPECT_TRUE(signatures.insert(key->layer_signature()).second) << "not merged: " << spec.name;
        }
      }
    }
  }
}

TEST(BuiltinNetworks, AlexNetIsTheRecordedTablesFiveLayers) {
  const Network net = network("alexnet");
  EXPECT_EQ(net.batch, 256);
  ASSERT_EQ(net.layers.size(), 5u);
  std::vector<std::string> names;
  for (const auto& spec : net.layers) names.push_back(spec.name);
  EXPECT_EQ(names, (std::vector<std::string>{"alex_conv1", "alex_conv2", "alex_conv3", "alex_conv4", "alex_conv5"}));
  // tests/data/README.md: C x H x W, K x R x S, pad, stride.
  expect_shape(net, "alex_conv1", {3, 227, 96, 11, 0, 4, 1});
  expect_shape(net, "alex_conv2", {96, 27, 256, 5, 2, 1, 1});
  expect_shape(net, "alex_conv3", {256, 13, 384, 3, 1, 1, 1});
  expect_shape(net, "alex_conv4", {384, 13, 384, 3, 1, 1, 1});
  expect_shape(net, "alex_conv5", {384, 13, 256, 3, 1, 1, 1});
  EXPECT_EQ(to_conv_key(layer(net, "alex_conv1"), ConvOp::kForward)->y.dims, (std::vector<int>{256, 96, 55, 55}));

  // Every layer of the recorded table is one of them.
  const auto kernels = read_measurements_csv(testing::alexnet_csv_path());
  ASSERT_TRUE(kernels.ok()) << kernels.message();
  for (const auto& kernel : *kernels) EXPECT_NE(find_layer(net, kernel.layer), nullptr) << kernel.layer;
}

TEST(BuiltinNetworks, ConvolutionCounts) {
  // {name, batch, convolutions counting repeats, distinct convolutions}
  const struct {
    const char* name;
    int batch, total, distinct;
  } expected[] = {
      {"alexnet", 256, 5, 5},
      {"resnet18", 128, 20, 11},     // 17 + 3 projections
      {"resnet50", 64, 53, 23},      // 49 + 4 projections
      {"vgg16", 64, 13, 9},
      {"densenet40", 256, 39, 39},   // 1 + 36 + 2 transitions
  };
  for (const auto& e : expected) {
    SCOPED_TRACE(e.name);
    const Network net = network(e.name);
    EXPECT_EQ(net.batch, e.batch);
    EXPECT_EQ(total_count(net), e.total);
    EXPECT_EQ(static_cast<int>(net.layers.size()), e.distinct);
  }
}

TEST(BuiltinNetworks, ResNet18Shapes) {
  const Network net = network("resnet18");
  expect_shape(net, "conv1", {3, 224, 64, 7, 3, 2, 1});
  expect_shape(net, "layer1.0.conv1", {64, 56, 64, 3, 1, 1, 4});  // all four 3x3 convs of layer1
  expect_shape(net, "layer2.0.conv1", {64, 56, 128, 3, 1, 2, 1});
  expect_shape(net, "layer2.0.conv2", {128, 28, 128, 3, 1, 1, 3});
  expect_shape(net, "layer2.0.downsample.0", {64, 56, 128, 1, 0, 2, 1});
  expect_shape(net, "layer3.0.downsample.0", {128, 28, 256, 1, 0, 2, 1});
  expect_shape(net, "layer4.0.conv2", {512, 7, 512, 3, 1, 1, 3});
  EXPECT_EQ(find_layer(net, "layer1.0.downsample.0"), nullptr);
  EXPECT_EQ(find_layer(net, "layer2.1.conv1"), nullptr) << "merged into layer2.0.conv2";
}

TEST(BuiltinNetworks, ResNet50IsV15) {
  const Network net = network("resnet50");
  expect_shape(net, "conv1", {3, 224, 64, 7, 3, 2, 1});
  // layer1.0.downsample.0 (64 -> 256, 1x1, 56) is the same convolution as the conv3s of layer1.
  expect_shape(net, "layer1.0.conv1", {64, 56, 64, 1, 0, 1, 1});
  expect_shape(net, "layer1.0.conv2", {64, 56, 64, 3, 1, 1, 3});
  expect_shape(net, "layer1.0.conv3", {64, 56, 256, 1, 0, 1, 4});
  expect_shape(net, "layer1.1.conv1", {256, 56, 64, 1, 0, 1, 2});
  EXPECT_EQ(find_layer(net, "layer1.0.downsample.0"), nullptr);
  // v1.5: the stride is on the 3x3 conv; the projection is a strided 1x1.
  expect_shape(net, "layer2.0.conv1", {256, 56, 128, 1, 0, 1, 1});
  expect_shape(net, "layer2.0.conv2", {128, 56, 128, 3, 1, 2, 1});
  expect_shape(net, "layer2.0.conv3", {128, 28, 512, 1, 0, 1, 4});
  expect_shape(net, "layer2.0.downsample.0", {256, 56, 512, 1, 0, 2, 1});
  expect_shape(net, "layer2.1.conv1", {512, 28, 128, 1, 0, 1, 3});
  expect_shape(net, "layer2.1.conv2", {128, 28, 128, 3, 1, 1, 3});
  expect_shape(net, "layer3.1.conv2", {256, 14, 256, 3, 1, 1, 5});
  expect_shape(net, "layer4.0.downsample.0", {1024, 14, 2048, 1, 0, 2, 1});
  expect_shape(net, "layer4.0.conv3", {512, 7, 2048, 1, 0, 1, 3});
}

TEST(BuiltinNetworks, Vgg16AndDenseNet40Shapes) {
  const Network vgg = network("vgg16");
  expect_shape(vgg, "conv1_1", {3, 224, 64, 3, 1, 1, 1});
  expect_shape(vgg, "conv1_2", {64, 224, 64, 3, 1, 1, 1});
  expect_shape(vgg, "conv3_2", {256, 56, 256, 3, 1, 1, 2});
  expect_shape(vgg, "conv4_1", {256, 28, 512, 3, 1, 1, 1});
  expect_shape(vgg, "conv5_1", {512, 14, 512, 3, 1, 1, 3});

  const Network dense = network("densenet40");
  expect_shape(dense, "conv0", {3, 32, 16, 3, 1, 1, 1});
  expect_shape(dense, "denseblock1.denselayer1.conv", {16, 32, 40, 3, 1, 1, 1});
  expect_shape(dense, "denseblock1.denselayer12.conv", {16 + 11 * 40, 32, 40, 3, 1, 1, 1});
  expect_shape(dense, "transition1.conv", {496, 32, 496, 1, 0, 1, 1});
  expect_shape(dense, "denseblock2.denselayer1.conv", {496, 16, 40, 3, 1, 1, 1});
  expect_shape(dense, "transition2.conv", {976, 16, 976, 1, 0, 1, 1});
  expect_shape(dense, "denseblock3.denselayer12.conv", {976 + 11 * 40, 8, 40, 3, 1, 1, 1});
}

TEST(BuiltinNetworks, UnknownNameListsTheKnownOnes) {
  const auto result = builtin_network("resnet51");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.message().find("'resnet51'"), std::string::npos) << result.message();
  EXPECT_NE(result.message().find("densenet40"), std::string::npos) << result.message();
}

// ---- Keys agree with cuDNN --------------------------------------------------------------------

TEST(NetworkKeys, BuiltinLayersGiveTheKeysOfCudnnDescriptors) {
  expect_cudnn_keys(layer(network("alexnet"), "alex_conv1"));
  expect_cudnn_keys(layer(network("resnet50"), "layer2.0.conv2"));
  expect_cudnn_keys(layer(network("resnet50"), "layer4.0.downsample.0"));
  expect_cudnn_keys(layer(network("densenet40"), "transition2.conv"));
}

TEST(NetworkKeys, GroupedNhwcHalfDilatedAnd3dLayersGiveTheKeysOfCudnnDescriptors) {
  const Network net = parsed(R"({"batch": 16, "layers": [
      {"name": "grouped", "input": [64, 28, 28], "filters": 128, "kernel": [3, 3], "pad": 1, "groups": 4},
      {"name": "depthwise", "input": [32, 56, 56], "filters": 32, "kernel": [3, 3], "pad": [1, 1],
       "stride": [2, 2], "groups": 32},
      {"name": "nhwc", "input": [64, 28, 28], "filters": 64, "kernel": [3, 3], "pad": 1, "layout": "NHWC"},
      {"name": "half", "input": [64, 28, 30], "filters": 96, "kernel": [5, 3], "pad": [2, 1], "data_type": "half"},
      {"name": "bf16_nhwc", "input": [32, 14, 14], "filters": 64, "kernel": [1, 1], "data_type": "bfloat16",
       "layout": "NHWC", "batch": 4},
      {"name": "dilated", "input": [16, 20, 20], "filters": 16, "kernel": [3, 3], "pad": 2, "dilation": 2},
      {"name": "conv3d", "input": [8, 6, 10, 12], "filters": 16, "kernel": [3, 3, 3], "pad": 1},
      {"name": "conv3d_nhwc", "input": [8, 6, 10, 12], "filters": 16, "kernel": [1, 3, 3], "stride": [1, 2, 2],
       "layout": "NHWC", "data_type": "half"}
  ]})");
  ASSERT_EQ(net.layers.size(), 8u);
  EXPECT_EQ(layer(net, "grouped").groups, 4);
  EXPECT_EQ(layer(net, "half").data_type, 2);
  EXPECT_EQ(layer(net, "bf16_nhwc").data_type, 9);
  EXPECT_EQ(layer(net, "bf16_nhwc").batch, 4);
  EXPECT_EQ(layer(net, "nhwc").layout, Layout::kNhwc);
  for (const ConvLayerSpec& spec : net.layers) expect_cudnn_keys(spec);
}

// ---- What a benchmark runs of a network -------------------------------------------------------

TEST(NetworkNames, DataTypesAndLayoutsRoundTrip) {
  for (int type : {0, 2, 9}) EXPECT_EQ(data_type_of_name(data_type_name(type)), type);
  EXPECT_EQ(data_type_name(2), "half");
  EXPECT_EQ(data_type_name(1), "data type 1");  // double: not a type networks use
  EXPECT_FALSE(data_type_of_name("double").has_value());
  EXPECT_FALSE(data_type_of_name("data type 1").has_value());
  EXPECT_EQ(layout_name(Layout::kNchw), "NCHW");
  EXPECT_EQ(layout_name(Layout::kNhwc, 2), "NHWC");
  EXPECT_EQ(layout_name(Layout::kNchw, 3), "NCDHW");
  EXPECT_EQ(layout_name(Layout::kNhwc, 3), "NDHWC");
}

// A 2-d FP32 NCHW input layer, a 2-d FP16 NHWC layer and a 3-d BF16 NCDHW layer in one file.
const char* const kMixedNetwork = R"({"batch": 4, "layers": [
    {"name": "stem", "input": [3, 32, 32], "filters": 16, "kernel": [3, 3], "pad": 1},
    {"name": "half2d", "input": [16, 32, 32], "filters": 16, "kernel": [3, 3], "pad": 1, "data_type": "half",
     "layout": "NHWC"},
    {"name": "bf16_3d", "input": [16, 4, 8, 8], "filters": 8, "kernel": [3, 3, 3], "pad": 1,
     "data_type": "bfloat16"}
]})";

TEST(NetworkOverrides, LayersKeepTheirOwnTypeAndLayoutWithoutOverrides) {
  Network net = parsed(kMixedNetwork);
  const auto notes = apply_overrides(LayerOverrides{}, &net);
  ASSERT_TRUE(notes.ok()) << notes.message();
  EXPECT_TRUE(notes->empty());
  ASSERT_EQ(net.layers.size(), 3u);
  EXPECT_EQ(net.layers[0].data_type, 0);
  EXPECT_EQ(net.layers[1].data_type, 2);
  EXPECT_EQ(net.layers[1].layout, Layout::kNhwc);
  EXPECT_EQ(net.layers[2].data_type, 9);
  EXPECT_EQ(net.layers[2].layout, Layout::kNchw);
  EXPECT_EQ(net.layers[2].spatial.size(), 3u);
  for (const ConvLayerSpec& spec : net.layers) expect_cudnn_keys(spec);
}

TEST(NetworkOverrides, ImposeTypeAndLayoutOnEveryLayerAndNameWhatTheyReplaced) {
  Network net = parsed(kMixedNetwork);
  LayerOverrides overrides;
  overrides.data_type = 2;
  overrides.layout = Layout::kNhwc;
  overrides.batch = 2;
  const auto notes = apply_overrides(overrides, &net);
  ASSERT_TRUE(notes.ok()) << notes.message();
  EXPECT_EQ(*notes, (std::vector<std::string>{"--data-type half overrides the network's float and bfloat16",
                                              "--layout NHWC overrides the network's NCHW"}));
  EXPECT_EQ(net.batch, 2);
  ASSERT_EQ(net.layers.size(), 3u);
  for (const ConvLayerSpec& spec : net.layers) {
    EXPECT_EQ(spec.data_type, 2) << spec.name;
    EXPECT_EQ(spec.layout, Layout::kNhwc) << spec.name;
    EXPECT_EQ(spec.batch, 2) << spec.name;
    expect_cudnn_keys(spec);  // the 3-d layer as NDHWC
  }
}

TEST(NetworkOverrides, ABuiltinNetworkIsFloatNchwSoOnlyOtherValuesGiveALine) {
  Network net = network("alexnet");
  LayerOverrides same;
  same.data_type = 0;
  same.layout = Layout::kNchw;
  const auto none = apply_overrides(same, &net);
  ASSERT_TRUE(none.ok()) << none.message();
  EXPECT_TRUE(none->empty());
  LayerOverrides half;
  half.data_type = 9;
  const auto notes = apply_overrides(half, &net);
  ASSERT_TRUE(notes.ok()) << notes.message();
  EXPECT_EQ(*notes, (std::vector<std::string>{"--data-type bfloat16 overrides the network's float"}));
  EXPECT_EQ(net.layers.size(), 5u);
  EXPECT_EQ(net.layers[4].data_type, 9);
  EXPECT_EQ(net.layers[4].layout, Layout::kNchw);
}

TEST(NetworkOverrides, LayersMadeIdenticalAreMergedAndBadValuesRefused) {
  Network net = parsed(R"({"batch": 8, "layers": [
      {"name": "a", "input": [16, 8, 8], "filters": 16, "kernel": [3, 3], "pad": 1},
      {"name": "a_half", "input": [16, 8, 8], "filters": 16, "kernel": [3, 3], "pad": 1, "data_type": "half"},
      {"name": "b", "input": [16, 8, 8], "filters": 32, "kernel": [3, 3], "pad": 1, "batch": 4}
  ]})");
  ASSERT_EQ(net.layers.size(), 3u);
  LayerOverrides overrides;
  overrides.data_type = 2;
  overrides.batch = 4;
  ASSERT_TRUE(apply_overrides(overrides, &net).ok());
  ASSERT_EQ(net.layers.size(), 2u);
  EXPECT_EQ(net.layers[0].name, "a");  // the first use keeps its name and place
  EXPECT_EQ(net.layers[0].count, 2);
  EXPECT_EQ(net.layers[1].name, "b");

  LayerOverrides bad_type;
  bad_type.data_type = 1;
  const auto refused = apply_overrides(bad_type, &net);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("data type 1"), std::string::npos) << refused.message();
  LayerOverrides bad_batch;
  bad_batch.batch = 0;
  EXPECT_FALSE(apply_overrides(bad_batch, &net).ok());
  EXPECT_EQ(net.layers[0].data_type, 2);  // a refused override changes nothing
  EXPECT_EQ(net.layers[0].batch, 4);
}

// "layer op" per kernel, for compact expectations.
std::vector<std::string> kernel_names(const Network& net, bool input_gradient) {
  std::vector<std::string> names;
  for (const NetworkKernel& k : training_kernels(net, input_gradient)) {
    names.push_back(net.layers.at(k.layer).name + " " + short_name(k.op));
  }
  return names;
}

TEST(TrainingKernels, TheInputLayerHasNoBackwardDataUnlessAsked) {
  const Network net = parsed(kMixedNetwork);
  EXPECT_EQ(kernel_names(net, false),
            (std::vector<std::string>{"stem fwd", "stem bwdf", "half2d fwd", "half2d bwdd", "half2d bwdf",
                                      "bf16_3d fwd", "bf16_3d bwdd", "bf16_3d bwdf"}));
  EXPECT_EQ(kernel_names(net, true),
            (std::vector<std::string>{"stem fwd", "stem bwdd", "stem bwdf", "half2d fwd", "half2d bwdd",
                                      "half2d bwdf", "bf16_3d fwd", "bf16_3d bwdd", "bf16_3d bwdf"}));
  const Network resnet50 = network("resnet50");
  EXPECT_EQ(training_kernels(resnet50, false).size(), 3 * resnet50.layers.size() - 1);
  EXPECT_EQ(kernel_names(resnet50, false).at(1), "conv1 bwdf");
  EXPECT_TRUE(training_kernels(Network{}, false).empty());
}

// ---- Network files ----------------------------------------------------------------------------

TEST(NetworkFile, OptionalKeysTakeTheirDefaults) {
  const Network net = parsed(R"({"batch": 32, "layers": [
      {"name": "c1", "input": [3, 224, 224], "filters": 64, "kernel": [7, 7]}]})");
  EXPECT_EQ(net.name, "net");  // the default name the caller gave
  EXPECT_EQ(net.batch, 32);
  ASSERT_EQ(net.layers.size(), 1u);
  const ConvLayerSpec& spec = net.layers[0];
  EXPECT_EQ(spec.name, "c1");
  EXPECT_EQ(spec.batch, 32);
  EXPECT_EQ(spec.channels, 3);
  EXPECT_EQ(spec.spatial, (std::vector<int>{224, 224}));
  EXPECT_EQ(spec.filters, 64);
  EXPECT_EQ(spec.filter, (std::vector<int>{7, 7}));
  EXPECT_EQ(spec.pad, (std::vector<int>{0, 0}));
  EXPECT_EQ(spec.stride, (std::vector<int>{1, 1}));
  EXPECT_EQ(spec.dilation, (std::vector<int>{1, 1}));
  EXPECT_EQ(spec.groups, 1);
  EXPECT_EQ(spec.data_type, 0);
  EXPECT_EQ(spec.layout, Layout::kNchw);
  EXPECT_EQ(spec.count, 1);
}

TEST(NetworkFile, EveryKeyOfTheDocumentedExample) {
  const Network net = parsed(R"({"name":"mynet","batch":32,"layers":[{"name":"c1","input":[3,224,224],
      "filters":64,"kernel":[7,7],"pad":[3,3],"stride":[2,2],"dilation":[1,1],"groups":1,"data_type":"float",
      "layout":"NCHW","batch":16,"count":2}]})");
  EXPECT_EQ(net.name, "mynet");
  ASSERT_EQ(net.layers.size(), 1u);
  const ConvLayerSpec& spec = net.layers[0];
  EXPECT_EQ(spec.pad, (std::vector<int>{3, 3}));
  EXPECT_EQ(spec.stride, (std::vector<int>{2, 2}));
  EXPECT_EQ(spec.batch, 16);
  EXPECT_EQ(spec.count, 2);
  ConvLayerSpec scalar = parsed(one_layer_json(R"("input": [3, 224, 224], "filters": 64, "kernel": [7, 7],
      "pad": 3, "stride": 2, "batch": 16, "count": 2)")).layers.at(0);
  scalar.name = spec.name;
  EXPECT_EQ(to_conv_key(scalar, ConvOp::kForward)->to_string(), to_conv_key(spec, ConvOp::kForward)->to_string());
}

TEST(NetworkFile, IdenticalLayersAreMergedAndCounted) {
  const Network net = parsed(R"({"batch": 8, "layers": [
      {"name": "a", "input": [16, 8, 8], "filters": 16, "kernel": [3, 3], "pad": 1},
      {"name": "b", "input": [16, 8, 8], "filters": 32, "kernel": [3, 3], "pad": 1},
      {"name": "a_again", "input": [16, 8, 8], "filters": 16, "kernel": [3, 3], "pad": [1, 1], "count": 2},
      {"name": "a_other_batch", "input": [16, 8, 8], "filters": 16, "kernel": [3, 3], "pad": 1, "batch": 4}
  ]})");
  ASSERT_EQ(net.layers.size(), 3u);
  EXPECT_EQ(net.layers[0].name, "a");
  EXPECT_EQ(net.layers[0].count, 3);
  EXPECT_EQ(net.layers[1].name, "b");
  EXPECT_EQ(net.layers[2].name, "a_other_batch");
  EXPECT_EQ(find_layer(net, "a_again"), nullptr);
}

// nlohmann kept the last of a key given twice, and two layers' counts overflowed.
TEST(NetworkFile, AKeyGivenTwiceInOneObjectIsRefused) {
  const std::string layer = R"({"name": "c1", "input": [3, 32, 32], "filters": 8, "kernel": [3, 3]})";
  expect_json_error(R"({"batch": 8, "batch": 9, "layers": [)" + layer + "]}", {"the key \"batch\" is given twice"});
  expect_json_error(R"({"batch": 8, "layers": [{"name": "c1", "input": [3, 32, 32], "filters": 8, "filters": 16,
      "kernel": [3, 3]}]})",
                    {"the key \"filters\" is given twice"});
  // The same key in two objects is no repetition.
  const Network net = parsed(R"({"batch": 8, "layers": [)" + layer + R"(, {"name": "c2", "input": [8, 32, 32],
      "filters": 8, "kernel": [3, 3]}]})");
  EXPECT_EQ(net.layers.size(), 2u);
}

TEST(NetworkFile, CountsOfIdenticalLayersThatWouldOverflowAreRefused) {
  const std::string shape = R"("input": [16, 8, 8], "filters": 16, "kernel": [3, 3], "pad": 1)";
  expect_json_error(R"({"batch": 8, "layers": [{"name": "a", )" + shape + R"(, "count": 2147483647},
      {"name": "b", )" + shape + R"(, "count": 2147483647}]})",
                    {"layer 'b' is the same convolution as layer 'a'", "more than 2147483647"});
  const Network most = parsed(R"({"batch": 8, "layers": [{"name": "a", )" + shape + R"(, "count": 2147483646},
      {"name": "b", )" + shape + R"(}]})");
  EXPECT_EQ(most.layers.at(0).count, 2147483647);
}

TEST(NetworkFile, ErrorsNameTheFileTheLayerAndTheProblem) {
  const std::string ok = R"("input": [3, 32, 32], "filters": 8, "kernel": [3, 3])";
  expect_json_error("{\"batch\": 8, ", {"invalid JSON"});
  expect_json_error("[]", {"object"});
  expect_json_error(R"({"layers": [{"name": "c1", )" + ok + "}]}", {"missing \"batch\""});
  expect_json_error(R"({"batch": 0, "layers": []})", {"\"batch\"", "at least 1"});
  expect_json_error(R"({"batch": 8})", {"missing \"layers\""});
  expect_json_error(R"({"batch": 8, "layers": []})", {"\"layers\"", "non-empty"});
  expect_json_error(R"({"batch": 8, "layer": []})", {"unknown key \"layer\""});
  expect_json_error(R"({"batch": 8, "layers": [{)" + ok + "}]}", {"layer 1", "missing \"name\""});
  expect_json_error(R"({"batch": 8, "layers": [{"name": "a,b", )" + ok + "}]}", {"layer 1", "commas"});
  expect_json_error(R"({"batch": 8, "layers": [{"name": "c1", )" + ok + R"(}, {"name": "c1", )" + ok + "}]}",
                    {"layer 'c1'", "twice"});
  expect_json_error(one_layer_json(ok + R"(, "strides": [2, 2])"), {"layer 'c1'", "unknown key \"strides\""});
  expect_json_error(one_layer_json(R"("input": [3, 32, 32], "filters": 8)"), {"layer 'c1'", "missing \"kernel\""});
  expect_json_error(one_layer_json(R"("input": [32, 32], "filters": 8, "kernel": [3, 3])"),
                    {"layer 'c1'", "\"input\""});
  expect_json_error(one_layer_json(R"("input": [3, 32, 32], "filters": 8, "kernel": [3, 3, 3])"),
                    {"layer 'c1'", "\"kernel\"", "2 integers"});
  expect_json_error(one_layer_json(ok + R"(, "pad": [1])"), {"layer 'c1'", "\"pad\""});
  expect_json_error(one_layer_json(ok + R"(, "pad": -1)"), {"layer 'c1'", "\"pad\""});
  expect_json_error(one_layer_json(ok + R"(, "stride": 0)"), {"layer 'c1'", "\"stride\""});
  expect_json_error(one_layer_json(R"("input": [3, 32, 32], "filters": 8.5, "kernel": [3, 3])"),
                    {"layer 'c1'", "\"filters\"", "integer"});
  expect_json_error(one_layer_json(ok + R"(, "count": 0)"), {"layer 'c1'", "\"count\""});
  expect_json_error(one_layer_json(ok + R"(, "batch": "8")"), {"layer 'c1'", "\"batch\""});
  expect_json_error(one_layer_json(ok + R"(, "groups": 2)"), {"layer 'c1'", "divisible by groups"});
  expect_json_error(one_layer_json(ok + R"(, "data_type": "double")"), {"layer 'c1'", "\"data_type\"", "double"});
  expect_json_error(one_layer_json(ok + R"(, "layout": "CHWN")"), {"layer 'c1'", "\"layout\"", "CHWN"});
  expect_json_error(one_layer_json(R"("input": [3, 32, 32], "filters": 8, "kernel": [40, 3])"),
                    {"layer 'c1'", "does not fit"});  // to_conv_key's check
  expect_json_error(one_layer_json(R"("input": [3, 32, 32], "filters": 8, "kernel": [3, 3], "pad": 2147483647)"),
                    {"layer 'c1'", "too large"});
  expect_json_error(one_layer_json(R"("input": [65536, 65536, 65536], "filters": 8, "kernel": [3, 3])"),
                    {"layer 'c1'", "2147483647 elements"});
  expect_json_error(one_layer_json(R"("input": [3, 32, 32], "filters": 4294967296, "kernel": [3, 3])"),
                    {"layer 'c1'", "\"filters\""});
}

TEST(NetworkFile, LoadsFilesAndResolvesNames) {
  testing::TempDir dir;
  const std::string path = dir.write("tiny.json", R"({"batch": 8, "layers": [{"name": "c1",
      "input": [3, 32, 32], "filters": 8, "kernel": [3, 3]}]})");
  const auto loaded = load_network_file(path);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  EXPECT_EQ(loaded->name, "tiny");  // the file name without its extension
  const auto resolved = resolve_network(path);
  ASSERT_TRUE(resolved.ok()) << resolved.message();
  EXPECT_EQ(resolved->layers.size(), 1u);
  const auto builtin = resolve_network("vgg16");
  ASSERT_TRUE(builtin.ok()) << builtin.message();
  EXPECT_EQ(builtin->name, "vgg16");

  const std::string missing = (dir.path() / "none.json").string();
  const auto not_there = load_network_file(missing);
  ASSERT_FALSE(not_there.ok());
  EXPECT_NE(not_there.message().find(missing), std::string::npos) << not_there.message();
  const auto unknown = resolve_network(missing);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find(missing), std::string::npos) << unknown.message();
  EXPECT_NE(unknown.message().find("alexnet"), std::string::npos) << unknown.message();
  const auto directory = load_network_file(dir.path().string());
  ASSERT_FALSE(directory.ok());
  EXPECT_NE(directory.message().find("directory"), std::string::npos) << directory.message();

  const std::string bad = dir.write("bad.json", one_layer_json(R"("input": [3, 32, 32], "filters": 8)"));
  const auto invalid = load_network_file(bad);
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.message().rfind(bad + ": layer 'c1': ", 0), 0u) << invalid.message();
}

}  // namespace
}  // namespace ucudnn
