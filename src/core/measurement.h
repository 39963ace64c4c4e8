#pragma once
// One benchmarked configuration of a convolution kernel: a candidate (core/candidate.h) run on a
// micro-batch, and what that measured.

#include <cstddef>

#include "core/candidate.h"

namespace ucudnn {

/// How a plan's calls reach the GPU, and so what one costs.
enum class CallPricing {
  kIssued,    ///< the host issues every call: the longer of its GPU and host time
  kReplayed,  ///< a captured CUDA graph replays the calls: one launch whatever their number, so GPU time
};

struct Measurement {
  /// What ran. In channel pieces (P > 1): a row the planner made from a row of the kernel's
  /// output-channel piece, P calls; never stored as such.
  Candidate candidate;
  int micro_batch = 0;
  double time_ms = 0.0;         ///< median GPU time of one call, calls run back to back
  double host_ms = 0.0;         ///< median host time to issue one call; 0: not measured (older rows)
  std::size_t workspace_bytes = 0;
  bool deterministic = true;

  /// What one call costs in a plan's sequence. Issued by the host, the longer of the two: the GPU
  /// cannot run a call before the host has issued it. Replayed, the GPU's time alone.
  double cost_ms(CallPricing pricing = CallPricing::kIssued) const {
    return pricing == CallPricing::kIssued && host_ms > time_ms ? host_ms : time_ms;
  }
};

}  // namespace ucudnn
