#pragma once
// The `plan` subcommand's computation: for every kernel of a measurement table, either a WR plan
// or its share of one WD budget, each next to the undivided baseline: what plain cuDNN runs with
// the same memory. Pure; formatting lives in plan_format.h.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/batch_policy.h"
#include "core/candidate_kinds.h"
#include "core/conv_op.h"
#include "core/expected.h"
#include "core/measurement.h"
#include "core/measurement_csv.h"
#include "optimize/wd_optimizer.h"
#include "optimize/wr_optimizer.h"

namespace ucudnn::tools {
using ucudnn::optimize::MicroBatchSplit;


/// One kernel's plan next to what plain cuDNN would do on the whole mini-batch.
struct WrKernelReport {
  std::string layer;
  ConvOp op = ConvOp::kForward;
  int batch = 0;
  Measurement undivided;  ///< the fastest algorithm at the full batch within the limit
  MicroBatchSplit plan;
};

/// What a plan's title says of where it came from, beside its numbers.
struct PlanOrigin {
  std::string network;       ///< the network whose kernels were planned; empty: the table's, as they are
  std::string limit_origin;  ///< the setting the limit or budget came from; empty: an option gave it
};

struct WrReport {
  BatchSizePolicy policy = BatchSizePolicy::kPowerOfTwo;
  std::size_t workspace_limit = 0;
  PlanOrigin origin;
  std::vector<WrKernelReport> kernels;  ///< in the table's order

  double total_time_ms() const;
  double undivided_total_time_ms() const;
};

/// One kernel's configuration chosen by workspace division.
struct WdKernelReport {
  std::string layer;
  ConvOp op = ConvOp::kForward;
  int batch = 0;
  MicroBatchSplit plan;                       ///< the chosen desirable configuration
  int desirable_configurations = 0;  ///< how many the kernel offered the program
  /// The fastest algorithm at the full batch within the undivided share; none where none fits.
  std::optional<Measurement> undivided;
};

struct WdReport {
  BatchSizePolicy policy = BatchSizePolicy::kPowerOfTwo;
  std::size_t total_workspace = 0;    ///< the budget shared by all kernels
  /// The baseline's workspace per kernel: the budget in equal shares, as plain cuDNN holds it where
  /// each kernel keeps a workspace of its own (as WD's segments are kept, side by side).
  std::size_t undivided_share = 0;
  PlanOrigin origin;
  std::vector<WdKernelReport> kernels;  ///< in the table's order
  double time_ms = 0.0;               ///< sum of the chosen configurations' times
  std::size_t workspace_used = 0;     ///< sum of their workspaces
  int variables = 0;                  ///< binary variables of the integer program
  double solve_ms = 0.0;              ///< wall time of building and solving it
  bool optimal = true;                ///< false: the time limit stopped the search (see gap)
  double gap = 0.0;                   ///< relative distance to the optimum's bound where not optimal

  /// The sum of the kernels' undivided times; none where a kernel has none within its share.
  std::optional<double> undivided_total_time_ms() const;
};

/// One kernel's desirable configurations (its Pareto front of time and workspace: the paper's
/// Fig. 8) next to every algorithm measured on its whole batch.
struct ParetoReport {
  std::string layer;
  ConvOp op = ConvOp::kForward;
  int batch = 0;
  BatchSizePolicy policy = BatchSizePolicy::kPowerOfTwo;
  std::vector<MicroBatchSplit> front;            ///< workspace ascending, time descending
  std::vector<Measurement> undivided;   ///< the full-batch rows, fastest first
};

/// The front of the kernel named "LAYER:OP" (e.g. "alex_conv2:fwd").
Expected<ParetoReport> pareto_report(const std::vector<KernelMeasurements>& kernels, const std::string& kernel_name,
                                     BatchSizePolicy policy);

/// The table with only the rows of the candidates in `set` (each kernel keeps its mini-batch). A
/// kernel left without rows is an error naming it and the set.
Expected<std::vector<KernelMeasurements>> rows_of_candidates(std::vector<KernelMeasurements> kernels, CandidateSet set);

/// Micro-batch sizes the policy allows for the kernel that its table also measured, ascending.
std::vector<int> measured_allowed_sizes(const KernelMeasurements& kernel, BatchSizePolicy policy);

/// Plans every kernel with optimize_wr. A kernel without any algorithm within the limit at its
/// full batch, or without a plan, is an error naming the kernel and the limit.
Expected<WrReport> plan_workspace_reuse(const std::vector<KernelMeasurements>& kernels,
                                          BatchSizePolicy policy, std::size_t workspace_limit);

/// Divides `total_workspace` among all kernels (each run once per iteration) with optimize_wd
/// over their desirable configurations, searching at most `time_limit_seconds`; each kernel's
/// baseline is undivided within an equal share of the budget. Errors: a kernel
/// with no configuration, a budget below what the kernels need at least, no choice within the
/// time limit, or a solver failure.
Expected<WdReport> plan_workspace_division(const std::vector<KernelMeasurements>& kernels,
                                           BatchSizePolicy policy, std::size_t total_workspace,
                                           double time_limit_seconds = kDefaultWdTimeLimitSeconds);

}  // namespace ucudnn::tools
