#pragma once
// One benchmarked configuration of a convolution kernel: a candidate run on a micro-batch. A
// candidate is either a legacy cuDNN algorithm (`algo`, `math_type`) or an engine configuration
// of cuDNN's graph API (`engine`, see core/candidates.h).

#include <cstddef>
#include <string>

namespace ucudnn {

/// How a plan's calls reach the GPU, and so what one costs.
enum class CallPricing {
  kIssued,    ///< the host issues every call: the longer of its GPU and host time
  kReplayed,  ///< a captured CUDA graph replays the calls: one launch whatever their number, so GPU time
};

struct Measurement {
  int micro_batch = 0;
  int algo = 0;                 ///< cudnnConvolution*Algo_t value of the kernel's op; -1 for an engine
  int math_type = 0;            ///< cudnnMathType_t value (engines: the caller's)
  double time_ms = 0.0;         ///< median GPU time of one call, calls run back to back
  std::size_t workspace_bytes = 0;
  bool deterministic = true;
  std::string engine;           ///< empty: the legacy algorithm; else an engine configuration id
  double host_ms = 0.0;         ///< median host time to issue one call; 0: not measured (older rows)
  /// 1: one call on the whole kernel. P > 1: a row the planner made from a row of the kernel's
  /// output-channel piece (optimize/channel_pieces.h), P calls; never stored as such.
  int pieces = 1;

  /// What one call costs in a plan's sequence. Issued by the host, the longer of the two: the GPU
  /// cannot run a call before the host has issued it. Replayed, the GPU's time alone.
  double cost_ms(CallPricing pricing = CallPricing::kIssued) const {
    return pricing == CallPricing::kIssued && host_ms > time_ms ? host_ms : time_ms;
  }
  /// Whether two rows measure the same candidate (at whatever micro-batch).
  bool same_candidate(const Measurement& o) const {
    return algo == o.algo && math_type == o.math_type && engine == o.engine && pieces == o.pieces;
  }
};

}  // namespace ucudnn
