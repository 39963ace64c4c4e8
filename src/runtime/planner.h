#pragma once
// The planner a front-end asks: WR (a plan per kernel under the caller's workspace limit) or WD
// (one budget divided among all kernels). Which one is active is decided when the settings
// change (UCUDNN_TOTAL_WORKSPACE_SIZE, ucudnnSetTotalWorkspaceSize), never per call: a call
// reads one pointer. A planner that fails leaves the call to plain cuDNN (the front-end's one
// fallback).

#include <cudnn.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "core/batch_policy.h"
#include "core/candidate_kinds.h"
#include "core/conv_key.h"
#include "core/expected.h"
#include "runtime/cudnn_shim.h"
#include "runtime/executor.h"
#include "runtime/graph_replay.h"

namespace ucudnn::runtime {

/// One convolution as the planner sees it: the handle's state read once by the front-end.
struct KernelRequest {
  cudnnHandle_t handle = nullptr;
  ConvKey key;
  BatchSizePolicy policy = BatchSizePolicy::kPowerOfTwo;
  CandidateSet candidates = CandidateSet::kBoth;
  int layer_id = -1;          ///< WD: the layer the call belongs to (-1: shared by shape)
  std::size_t requested_limit = 0;      ///< WR: the limit get/find plans under; convolutions first try the
                              ///< limit their get/find call asked for
  std::size_t available_limit = 0;  ///< WR convolutions: the limit the workspace they are given allows
  bool may_benchmark = true;  ///< false while the stream is captured into a CUDA graph
  // Convolutions only:
  cudaStream_t stream = nullptr;  ///< the handle's stream
  bool may_replay = false;        ///< replay switched on and the stream not being captured

  CallTarget target() const { return CallTarget{handle, stream, may_replay}; }
};

class Planner {
 public:
  virtual ~Planner() = default;
  /// Get/find: plans the kernel and lists the virtual algorithm first, then what else it can say
  /// (measured real algorithms within the limit, fastest first); `requested` answers at most.
  virtual Status offer(const KernelRequest& request, int requested, std::vector<AlgoPerf>* answers) = 0;
  /// Get*WorkspaceSize of the virtual algorithm: what the caller must give.
  virtual Status workspace(const KernelRequest& request, std::size_t* bytes) = 0;
  /// Convolution*: runs the kernel with the caller's workspace (WR) or its own segment (WD).
  virtual Status run(const KernelRequest& request, const void* alpha, const void* beta, const ConvBuffers& buffers,
                     void* workspace, std::size_t workspace_bytes) = 0;
  /// ucudnnGetPlan: the plan a call would run (`named_limit`: plan under that limit as WR).
  virtual Status describe(const KernelRequest& request, std::optional<std::size_t> named_limit,
                          std::shared_ptr<const ExecutablePlan>* plan) = 0;
};

/// The planner in force: WD while a total workspace size is set, WR otherwise. This and the
/// next two are wired in api/process_wiring.cpp, with the planners they choose from.
Planner& active_planner();
/// Sets the WD budget (0: WR) and with it the active planner.
void set_total_workspace(std::size_t bytes);
std::size_t total_workspace();

/// The virtual algorithm value of an op ("run the micro-batch plan").
int virtual_algo(ConvOp op);

}  // namespace ucudnn::runtime
