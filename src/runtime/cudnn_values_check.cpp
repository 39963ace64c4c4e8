// core/cudnn_values.h against cuDNN's headers: a value that drifts fails the CUDA build.

#include <cudnn.h>

#include "core/cudnn_values.h"

namespace ucudnn::cudnn_values {

static_assert(kDataFloat == CUDNN_DATA_FLOAT);
static_assert(kDataDouble == CUDNN_DATA_DOUBLE);
static_assert(kDataHalf == CUDNN_DATA_HALF);
static_assert(kDataBfloat16 == CUDNN_DATA_BFLOAT16);
static_assert(kTensorNchw == CUDNN_TENSOR_NCHW);
static_assert(kTensorNhwc == CUDNN_TENSOR_NHWC);
static_assert(kCrossCorrelation == CUDNN_CROSS_CORRELATION);
static_assert(kDefaultMath == CUDNN_DEFAULT_MATH);
static_assert(kFmaMath == CUDNN_FMA_MATH);
static_assert(kDefaultReorder == CUDNN_DEFAULT_REORDER);

}  // namespace ucudnn::cudnn_values
