#pragma once
// A convolution layer as networks describe it (shapes, not descriptors), and the ConvKey that
// cuDNN descriptors made from it would give: packed NCHW or NHWC tensors, cross-correlation,
// FP32 compute, cuDNN's default math and reorder types. Needs no cuDNN, so the offline tools can
// name database rows without a GPU.

#include <string>
#include <vector>

#include "core/conv_key.h"
#include "core/expected.h"

namespace ucudnn {

enum class Layout { kNchw, kNhwc };

struct ConvLayerSpec {
  std::string name;
  int batch = 1;
  int channels = 1;            ///< C
  std::vector<int> spatial;    ///< input H, W (D, H, W for 3-d)
  int filters = 1;             ///< K
  std::vector<int> filter;     ///< R, S (...)
  std::vector<int> pad, stride, dilation;  ///< one per spatial dimension
  int groups = 1;
  int data_type = 0;           ///< cudnnDataType_t: 0 float, 2 half, 9 bfloat16
  Layout layout = Layout::kNchw;
  int count = 1;               ///< how many times the network uses this layer
};

/// Checks the spec (positive sizes, matching ranks, channels divisible by groups, a non-empty
/// output) and builds the key of one op at the spec's batch. Errors name the layer.
Expected<ConvKey> to_conv_key(const ConvLayerSpec& spec, ConvOp op, int device = 0);

/// Output spatial size of one dimension: (in + 2 pad - dilation (filter - 1) - 1) / stride + 1.
int conv_output_size(int input, int filter, int pad, int stride, int dilation);

}  // namespace ucudnn
