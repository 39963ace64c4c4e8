#pragma once
// One benchmarked configuration of a convolution kernel: an algorithm run on a micro-batch.

#include <cstddef>

namespace ucudnn {

struct Measurement {
  int micro_batch = 0;
  int algo = 0;                 ///< cudnnConvolution*Algo_t value of the kernel's op
  int math_type = 0;            ///< cudnnMathType_t value
  double time_ms = 0.0;         ///< median cost of one call in a sequence: max(GPU time, host time)
  std::size_t workspace_bytes = 0;
  bool deterministic = true;
};

}  // namespace ucudnn
