#pragma once
// The GPU benchmark's timing: kernels queued behind a StreamGate, the sides' sequences interleaved.

#include <vector>

#include "benchmark_sides.h"
#include "conv_benchmark_options.h"

namespace bench {

/// Each kernel's median, queued.
void time_kernels(Side& side, const Options& o);

/// The sides' whole sequences alternate, run by run, in a rotating order, so that drift in the
/// host's pace (large where legacy cuDNN calls are host-bound, as in FP16) affects all alike; each
/// side's median is kept.
void time_sequences(std::vector<Side>& sides, const Options& o, ProcessBudget& budget);

}  // namespace bench
