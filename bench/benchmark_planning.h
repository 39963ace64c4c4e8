#pragma once
// The GPU benchmark's planning of each side: plain cuDNN's Find choices, a ucudnn handle's plans.

#include <vector>

#include "benchmark_layers.h"
#include "benchmark_sides.h"
#include "tools/networks.h"

namespace bench {

/// Plain cuDNN's choices and the time its Find calls took.
void plan_plain(Side* side, const std::vector<Layer>& layers,
                const std::vector<ucudnn::tools::NetworkKernel>& kernels);

/// A side on a ucudnn handle, planned as a framework asks: get_v7, then the workspace size; in WD
/// one division for all its kernels. Its planning time, and the benchmarking and solving in it.
void plan_ucudnn(Side* side, const std::vector<Layer>& layers,
                 const std::vector<ucudnn::tools::NetworkKernel>& kernels);

/// Adds `part` (sign 1) or takes it away (sign -1) from `total`, field by field.
void accumulate_search(UcudnnSearchPhases* total, const UcudnnSearchPhases& part, int sign);

}  // namespace bench
