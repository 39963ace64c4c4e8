#pragma once
// The GPU benchmark's workload: a training step's kernels, and each layer's descriptors and tensors.

#include <cudnn.h>

#include <memory>
#include <string>
#include <vector>

#include "bench_support.h"
#include "conv_benchmark_options.h"
#include "tools/networks.h"

namespace bench {

struct Layer {
  ucudnn::ConvLayerSpec spec;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;  // the caller's math type, as a framework sets it
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  std::unique_ptr<DeviceMemory> x_mem, y_mem, w_mem;
};

/// The network with the options imposed, and the kernels of its training step. Prints a line for
/// each value an option replaced (unless `quiet`).
struct Workload {
  ucudnn::tools::Network network;
  std::vector<ucudnn::tools::NetworkKernel> kernels;
};

Workload workload_of(const Options& o, const Settings& settings, bool quiet);

/// The layer's convolution as a framework describes it: FP32 accumulation, the given math type.
cudnnConvolutionDescriptor_t make_conv(const ucudnn::ConvLayerSpec& spec, cudnnMathType_t math);

/// "float NCHW", "half NDHWC": a layer's data type and layout.
std::string precision_of(const ucudnn::ConvLayerSpec& spec);

/// Every layer of the network, in its order, with random tensors (one fixed seed).
std::vector<Layer> make_layers(const ucudnn::tools::Network& network, const Settings& settings);
void destroy_layers(std::vector<Layer>& layers);

}  // namespace bench
