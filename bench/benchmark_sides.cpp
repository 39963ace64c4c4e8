// The GPU benchmark's sides: their handles, and every kernel's call bound to the shared workspace.
#include "benchmark_sides.h"

#include <cuda_runtime_api.h>

#include "core/units.h"

namespace bench {
namespace {

UcudnnHandle_t make_ucudnn_handle(UcudnnBatchSizePolicy_t policy, UcudnnCandidates_t candidates, size_t limit,
                                  int graph_replay) {
  UcudnnHandle_t handle;
  check(cudnnCreate(&handle), "cudnnCreate(UcudnnHandle_t)");
  check(ucudnnSetCandidates(handle, candidates), "candidates");
  check(ucudnnSetGraphReplay(handle, graph_replay), "graph replay");
  check(ucudnnSetBatchSizePolicy(handle, policy), "policy");
  check(ucudnnSetDefaultWorkspaceLimit(handle, limit), "limit");
  return handle;
}

// Half the device memory free once the network's tensors are allocated: a per-kernel limit that
// no convolution reaches, leaving room for the other sides' workspaces and cuDNN's own.
size_t unlimited_limit() {
  size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  return free_bytes / 2 / (size_t{1} << 20) * (size_t{1} << 20);
}

}  // namespace

std::vector<Side> make_sides(const Settings& settings, const Options& o) {
  std::vector<Side> sides;
  sides.emplace_back(SideKind::kPlain, "plain legacy", "legacy", "cudnn", settings.limit);
  check(cudnnCreate(&sides.back().plain), "cudnnCreate");
  if (settings.all_baselines) {
    sides.emplace_back(SideKind::kBestAtLimit, "best engine at " + ucudnn::format_byte_size(settings.limit),
                       "best@limit", "best_at_limit", settings.limit);
    sides.emplace_back(SideKind::kBestUnlimited, "best engine unlimited", "best@unlim", "best_unlimited",
                       unlimited_limit());
    for (Side* side : {&sides[1], &sides[2]}) {
      side->handle = make_ucudnn_handle(UCUDNN_BATCH_SIZE_POLICY_UNDIVIDED, UCUDNN_CANDIDATES_BOTH, side->limit,
                                        o.graph_replay);
    }
  }
  sides.emplace_back(SideKind::kUcudnn, "ucudnn", "ucudnn", "ucudnn", settings.limit);
  sides.back().total_workspace = settings.total_workspace;
  sides.back().handle = make_ucudnn_handle(settings.policy, settings.candidates, settings.limit, o.graph_replay);
  return sides;
}

void destroy_sides(std::vector<Side>& sides) {
  for (Side& side : sides) {
    side.kernels.clear();  // their descriptors first
    if (side.kind == SideKind::kPlain) {
      cudnnDestroy(side.plain);
    } else {
      cudnnDestroy(side.handle);
    }
  }
}

std::unique_ptr<DeviceMemory> bind_launches(std::vector<Side>& sides, const std::vector<Layer>& layers) {
  size_t largest = 0;
  for (const Side& side : sides) {
    for (const Kernel& k : side.kernels) largest = std::max(largest, k.workspace);
  }
  size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  if (largest > free_bytes) {
    fail("the largest workspace chosen (" + ucudnn::format_byte_size(largest) + ") exceeds the free device memory (" +
         ucudnn::format_byte_size(free_bytes) + ")");
  }
  auto buffer = std::make_unique<DeviceMemory>(largest);
  for (Side& side : sides) {
    for (Kernel& k : side.kernels) {
      const Layer& l = layers[k.layer];
      k.launch = side.kind == SideKind::kPlain
                     ? make_launch(side.plain, l, k.conv.get(), k.op, k.algo, buffer->ptr, k.workspace)
                     : make_launch(side.handle, l, l.conv, k.op, k.algo, buffer->ptr, k.workspace);
    }
  }
  return buffer;
}

}  // namespace bench
