// The GPU benchmark's layers: the network with the options imposed, descriptors and random device tensors.
#include "benchmark_layers.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>

namespace bench {
namespace {

size_t element_bytes(cudnnDataType_t type) { return type == CUDNN_DATA_FLOAT ? 4 : 2; }

// Uniform in [-1, 1), converted on the host to the tensor's type.
void fill_random(void* device, size_t count, cudnnDataType_t type, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> host(count);
  for (auto& v : host) v = dist(rng);
  if (type == CUDNN_DATA_FLOAT) {
    check(cudaMemcpy(device, host.data(), count * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
    return;
  }
  std::vector<unsigned short> narrow(count);
  for (size_t i = 0; i < count; ++i) {
    if (type == CUDNN_DATA_HALF) {
      const __half h = __float2half_rn(host[i]);
      std::memcpy(&narrow[i], &h, 2);
    } else {
      const __nv_bfloat16 b = __float2bfloat16_rn(host[i]);
      std::memcpy(&narrow[i], &b, 2);
    }
  }
  check(cudaMemcpy(device, narrow.data(), count * 2, cudaMemcpyHostToDevice), "cudaMemcpy");
}

cudnnMathType_t math_of(const ucudnn::ConvLayerSpec& spec, const Settings& settings) {
  return spec.data_type == CUDNN_DATA_FLOAT ? settings.float_math : CUDNN_TENSOR_OP_MATH;
}

size_t product(const std::vector<int>& dims) {
  size_t n = 1;
  for (int d : dims) n *= static_cast<size_t>(d);
  return n;
}

// A layer's descriptors and random tensors on the device, in its type and layout.
Layer make_layer(const ucudnn::ConvLayerSpec& spec, const Settings& settings, std::mt19937& rng) {
  const auto key = ucudnn::to_conv_key(spec, ucudnn::ConvOp::kForward);
  if (!key) fail(key.message());
  const auto type = static_cast<cudnnDataType_t>(spec.data_type);
  const cudnnTensorFormat_t format = spec.layout == ucudnn::Layout::kNhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
  const int rank = static_cast<int>(spec.spatial.size()) + 2;
  std::vector<int> x_dims = {spec.batch, spec.channels}, w_dims = {spec.filters, spec.channels / spec.groups};
  x_dims.insert(x_dims.end(), spec.spatial.begin(), spec.spatial.end());
  w_dims.insert(w_dims.end(), spec.filter.begin(), spec.filter.end());
  Layer l;
  l.spec = spec;
  l.math = math_of(spec, settings);
  const std::string where = "layer " + spec.name + " (" + precision_of(spec) + "): ";
  check(cudnnCreateTensorDescriptor(&l.x), "desc");
  check(cudnnCreateTensorDescriptor(&l.y), "desc");
  check(cudnnCreateFilterDescriptor(&l.w), "desc");
  check(cudnnSetTensorNdDescriptorEx(l.x, format, type, rank, x_dims.data()), (where + "x descriptor").c_str());
  check(cudnnSetFilterNdDescriptor(l.w, type, format, rank, w_dims.data()), (where + "filter descriptor").c_str());
  l.conv = make_conv(spec, l.math);
  std::vector<int> y_dims(rank);
  check(cudnnGetConvolutionNdForwardOutputDim(l.conv, l.x, l.w, rank, y_dims.data()),
        (where + "output dims").c_str());
  if (y_dims != key->y.dims) fail(where + "cuDNN's output dims differ from the network's");
  check(cudnnSetTensorNdDescriptorEx(l.y, format, type, rank, y_dims.data()), (where + "y descriptor").c_str());
  const size_t x_count = product(x_dims), y_count = product(y_dims), w_count = product(w_dims);
  l.x_mem = std::make_unique<DeviceMemory>(x_count * element_bytes(type));
  l.y_mem = std::make_unique<DeviceMemory>(y_count * element_bytes(type));
  l.w_mem = std::make_unique<DeviceMemory>(w_count * element_bytes(type));
  fill_random(l.x_mem->ptr, x_count, type, rng);
  fill_random(l.y_mem->ptr, y_count, type, rng);
  fill_random(l.w_mem->ptr, w_count, type, rng);
  return l;
}

// The kernels of `all` that `wanted` names (LAYER:OP), in the training step's order; a name that
// is no kernel of it fails, naming the kernels there are.
std::vector<ucudnn::tools::NetworkKernel> only_kernels(const ucudnn::tools::Network& network,
                                                       const std::vector<ucudnn::tools::NetworkKernel>& all,
                                                       const std::vector<std::string>& wanted) {
  if (wanted.empty()) return all;
  auto name_of = [&](const ucudnn::tools::NetworkKernel& k) {
    return network.layers[k.layer].name + ":" + ucudnn::short_name(k.op);
  };
  std::vector<ucudnn::tools::NetworkKernel> kept;
  for (const ucudnn::tools::NetworkKernel& k : all) {
    if (std::find(wanted.begin(), wanted.end(), name_of(k)) != wanted.end()) kept.push_back(k);
  }
  for (const std::string& name : wanted) {
    if (std::none_of(all.begin(), all.end(), [&](const auto& k) { return name_of(k) == name; })) {
      std::string names;
      for (std::size_t i = 0; i < all.size() && i < 6; ++i) names += (i ? ", " : "") + name_of(all[i]);
      fail("--kernels: " + name + " is no kernel of " + network.name + "'s training step (" + names +
           (all.size() > 6 ? ", ..." : "") + ")");
    }
  }
  return kept;
}

}  // namespace

Workload workload_of(const Options& o, const Settings& settings, bool quiet) {
  auto network = ucudnn::tools::resolve_network(o.network_name);
  if (!network) fail(network.message());
  Workload w{std::move(network).value(), {}};
  const auto notes = ucudnn::tools::apply_overrides(settings.overrides, &w.network);
  if (!notes) fail(notes.message());
  if (!quiet) {
    for (const std::string& note : *notes) std::printf("%s\n", note.c_str());
  }
  if (settings.float_math == CUDNN_FMA_MATH &&
      std::none_of(w.network.layers.begin(), w.network.layers.end(),
                   [](const ucudnn::ConvLayerSpec& l) { return l.data_type == CUDNN_DATA_FLOAT; })) {
    fail("--math fma is for float layers, and " + w.network.name + " has none");
  }
  w.kernels = only_kernels(w.network, ucudnn::tools::training_kernels(w.network, o.input_gradient), o.kernels);
  return w;
}

cudnnConvolutionDescriptor_t make_conv(const ucudnn::ConvLayerSpec& spec, cudnnMathType_t math) {
  cudnnConvolutionDescriptor_t conv;
  check(cudnnCreateConvolutionDescriptor(&conv), "desc");
  check(cudnnSetConvolutionNdDescriptor(conv, static_cast<int>(spec.spatial.size()), spec.pad.data(),
                                        spec.stride.data(), spec.dilation.data(), CUDNN_CROSS_CORRELATION,
                                        CUDNN_DATA_FLOAT),
        "cudnnSetConvolutionNdDescriptor");
  check(cudnnSetConvolutionGroupCount(conv, spec.groups), "groups");
  check(cudnnSetConvolutionMathType(conv, math), "math type");
  return conv;
}

std::string precision_of(const ucudnn::ConvLayerSpec& spec) {
  return ucudnn::tools::data_type_name(spec.data_type) + " " +
         ucudnn::tools::layout_name(spec.layout, spec.spatial.size());
}

std::vector<Layer> make_layers(const ucudnn::tools::Network& network, const Settings& settings) {
  std::mt19937 rng(20261122);
  std::vector<Layer> layers;
  for (const ucudnn::ConvLayerSpec& spec : network.layers) layers.push_back(make_layer(spec, settings, rng));
  return layers;
}

void destroy_layers(std::vector<Layer>& layers) {
  for (Layer& l : layers) {
    cudnnDestroyTensorDescriptor(l.x);
    cudnnDestroyTensorDescriptor(l.y);
    cudnnDestroyFilterDescriptor(l.w);
    cudnnDestroyConvolutionDescriptor(l.conv);
  }
}

}  // namespace bench
