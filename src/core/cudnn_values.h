#pragma once
// The values of cuDNN's enumerators that CUDA-free code needs (the planner, the network files, the
// command line build without cuDNN), spelled out so that it includes no cuDNN header. The CUDA
// build checks every one against cuDNN's own (runtime/cudnn_values_check.cpp).

namespace ucudnn::cudnn_values {

inline constexpr int kDataFloat = 0;      // CUDNN_DATA_FLOAT
inline constexpr int kDataDouble = 1;     // CUDNN_DATA_DOUBLE
inline constexpr int kDataHalf = 2;       // CUDNN_DATA_HALF
inline constexpr int kDataBfloat16 = 9;   // CUDNN_DATA_BFLOAT16
inline constexpr int kTensorNchw = 0;     // CUDNN_TENSOR_NCHW
inline constexpr int kTensorNhwc = 1;     // CUDNN_TENSOR_NHWC
inline constexpr int kCrossCorrelation = 1;  // CUDNN_CROSS_CORRELATION
inline constexpr int kDefaultMath = 0;    // CUDNN_DEFAULT_MATH
inline constexpr int kFmaMath = 3;        // CUDNN_FMA_MATH, the last cudnnMathType_t
inline constexpr int kDefaultReorder = 0;  // CUDNN_DEFAULT_REORDER

}  // namespace ucudnn::cudnn_values
