#pragma once
// A graph-API convolution as ucudnn's ConvKey, so that it is planned, stored and run exactly as
// the same convolution reached through the legacy API would be.

#include "api/graph/records.h"
#include "core/conv_key.h"
#include "core/expected.h"

namespace ucudnn::api {

/// The legacy math type that allows what the program's chosen engine does: FP32 data may use
/// TF32 only where that engine does (its numerical notes say tensor cores or down-converted
/// inputs), half and bfloat16 data use tensor cores, double data the default.
int graph_math_type(int data_type, bool engine_uses_tensor_cores);

/// The key of `conv` on `device` with `math_type`. Fails (NOT_SUPPORTED, saying why) for what the
/// legacy descriptors cannot express or ucudnn cannot split: ranks other than 4 and 5, asymmetric
/// padding, a filter neither packed NCHW nor packed NHWC, channels that are no multiple of the
/// filter's, batch sizes that differ, values beyond int.
Status graph_conv_key(const GraphConvolution& conv, int device, int math_type, ConvKey* key);

}  // namespace ucudnn::api
