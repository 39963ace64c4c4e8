#pragma once
// The `plan` subcommand's computation: a WR plan and the undivided baseline for every kernel
// of a measurement table. Pure; formatting lives in plan_format.h.

#include <cstddef>
#include <string>
#include <vector>

#include "core/batch_policy.h"
#include "core/conv_op.h"
#include "core/expected.h"
#include "core/measurement.h"
#include "core/measurement_csv.h"
#include "optimize/wr_optimizer.h"

namespace ucudnn {

/// One kernel's plan next to what plain cuDNN would do on the whole mini-batch.
struct KernelPlan {
  std::string layer;
  ConvOp op = ConvOp::kForward;
  int batch = 0;
  Measurement undivided;  ///< the fastest algorithm at the full batch within the limit
  WrPlan plan;
};

struct PlanReport {
  BatchSizePolicy policy = BatchSizePolicy::kPowerOfTwo;
  std::size_t workspace_limit = 0;
  std::vector<KernelPlan> kernels;  ///< in the table's order

  double total_time_ms() const;
  double undivided_total_time_ms() const;
};

/// Micro-batch sizes the policy allows for the kernel that its table also measured, ascending.
std::vector<int> measured_allowed_sizes(const KernelMeasurements& kernel, BatchSizePolicy policy);

/// Plans every kernel with optimize_wr. A kernel without any algorithm within the limit at its
/// full batch, or without a plan, is an error naming the kernel and the limit.
Expected<PlanReport> plan_workspace_reuse(const std::vector<KernelMeasurements>& kernels,
                                          BatchSizePolicy policy, std::size_t workspace_limit);

}  // namespace ucudnn
