#pragma once
// The GPU benchmark's sides (plain legacy, best engine at the limit and unlimited, ucudnn) and their kernels.

#include <cudnn.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench_support.h"
#include "benchmark_layers.h"
#include "conv_benchmark_options.h"
#include "ucudnn/ucudnn.h"

namespace bench {

struct ConvDescriptorDeleter {
  void operator()(cudnnConvolutionStruct* d) const { cudnnDestroyConvolutionDescriptor(d); }
};
using OwnedConvDescriptor = std::unique_ptr<cudnnConvolutionStruct, ConvDescriptorDeleter>;

// One kernel of one side, ready to run: its choice, the workspace it asks for, and the call.
struct Kernel {
  size_t layer = 0;  // index into the layers
  int op = 0;        // UcudnnConvolutionOp_t
  int algo = -1;
  int math_type = CUDNN_DEFAULT_MATH;  // plain cuDNN: the Find result's
  size_t workspace = 0;                // what the call is given (ucudnn in WD mode: 0, it uses its segment)
  OwnedConvDescriptor conv;            // plain cuDNN: the layer's convolution with the chosen math type
  std::function<void()> launch;
  float time_ms = 0;  // queued: max(host, GPU)
  UcudnnPlan plan;  // the sides on ucudnn handles
  UcudnnSearchPhases search{};  // ucudnn: where this kernel's search went (what its planning added)
  double planning_seconds = 0;  // ucudnn: this kernel's get/find call, its search included
};

enum class SideKind { kPlain, kBestAtLimit, kBestUnlimited, kUcudnn };

struct Side {
  SideKind kind = SideKind::kPlain;
  std::string label;   // in the summary lines: "plain legacy", "best engine at 8 MiB", ...
  std::string column;  // in the table: "legacy", "best@limit", ...
  std::string json;    // the JSON fields' prefix
  cudnnHandle_t plain = nullptr;  // kPlain
  UcudnnHandle_t handle;          // the others
  size_t limit = 0;               // per kernel
  size_t total_workspace = 0;     // WD's budget while this side plans and runs (ucudnn in WD mode)
  std::vector<Kernel> kernels;
  double planning_seconds = 0, benchmark_seconds = 0, solve_seconds = 0;
  UcudnnWorkspaceDivisionInfo division{};  // ucudnn in WD mode
  float sequence_ms = 0;

  Side(SideKind k, std::string label_text, std::string column_text, std::string json_prefix, size_t per_kernel)
      : kind(k), label(std::move(label_text)), column(std::move(column_text)), json(std::move(json_prefix)),
        limit(per_kernel) {}

  // The workspace a kernel takes: in WD its segment, else what its call is given.
  size_t workspace_of(const Kernel& k) const { return total_workspace > 0 ? k.plan.workspaceBytes : k.workspace; }
  size_t workspace_sum() const {
    size_t sum = 0;
    for (const Kernel& k : kernels) sum += workspace_of(k);
    return sum;
  }
  size_t workspace_max() const {
    size_t most = 0;
    for (const Kernel& k : kernels) most = std::max(most, workspace_of(k));
    return most;
  }
  float kernel_sum() const {
    float sum = 0;
    for (const Kernel& k : kernels) sum += k.time_ms;
    return sum;
  }
};

// WD's budget is process-wide: it is set while ucudnn's side plans and runs, and unset (WR) for
// the baselines' handles, which keep the per-kernel limit. Changing it outside WD runs is never needed.
class ProcessBudget {
 public:
  void set_for(const Side& side) {
    if (known_ && side.total_workspace == current_) return;
    check(ucudnnSetTotalWorkspaceSize(side.total_workspace), "ucudnnSetTotalWorkspaceSize");
    current_ = side.total_workspace;
    known_ = true;
  }

 private:
  bool known_ = false;  // UCUDNN_TOTAL_WORKSPACE_SIZE may have set one
  size_t current_ = 0;
};

/// The sides in report order: plain legacy, the best-engine baselines (unless --baselines plain),
/// ucudnn last.
std::vector<Side> make_sides(const Settings& settings, const Options& o);
void destroy_sides(std::vector<Side>& sides);

/// Binds every kernel's call to the one workspace buffer the sides share (they run one at a time).
std::unique_ptr<DeviceMemory> bind_launches(std::vector<Side>& sides, const std::vector<Layer>& layers);

}  // namespace bench
