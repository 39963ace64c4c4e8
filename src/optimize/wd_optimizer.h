#pragma once
// Workspace division (WD, the paper's §III-E): one workspace budget for a whole network, divided
// among its kernels by a 0-1 integer program solved with GLPK:
//
//   minimise   sum_k count_k * sum_c time_kc * x_kc
//   subject to sum_c x_kc = 1 for every kernel k,   sum_k sum_c workspace_kc * x_kc <= budget,
//              x_kc in {0, 1}
//
// over each kernel's desirable configurations c. A kernel that runs several times (count > 1)
// shares one workspace segment, so its workspace counts once.

#include <cstddef>
#include <string>
#include <vector>

#include "core/expected.h"
#include "core/units.h"
#include "optimize/wr_optimizer.h"

namespace ucudnn::optimize {

struct WdKernel {
  std::string name;            ///< for messages
  int count = 1;               ///< how many times the network runs it per iteration
  std::vector<MicroBatchSplit> front;   ///< desirable configurations (desirable_configurations())
};

struct WdSolution {
  std::vector<int> choice;          ///< per kernel, the index of its chosen configuration
  double time_ms = 0.0;             ///< sum of count * chosen time
  std::size_t workspace_bytes = 0;  ///< sum of chosen workspaces
  int variables = 0;                ///< binary variables of the program
  double solve_ms = 0.0;            ///< wall time of building and solving it
  /// False where the time limit stopped the search: the choice is the best found, within `gap`
  /// of the optimum.
  bool optimal = true;
  double gap = 0.0;  ///< (time - lower bound) / time when not optimal
};

/// Solves the program within `time_limit_seconds`: the optimum, or where the limit stops the
/// search, the best choice found with its gap. Errors: an empty front (the kernel cannot run), a
/// budget below the sum of the kernels' smallest workspaces (names the minimum needed), no choice
/// found within the limit (names the limit), or a solver failure.
Expected<WdSolution> optimize_wd(const std::vector<WdKernel>& kernels, std::size_t total_workspace,
                                 double time_limit_seconds = kDefaultWdTimeLimitSeconds);

}  // namespace ucudnn::optimize
