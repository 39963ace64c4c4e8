#pragma once
// The graph-API front-end: cuDNN's backend calls as the LD_PRELOAD layer hands them over, each
// with cuDNN's own function to call. It follows the program's descriptors (api/graph/records.h)
// and takes over the execution plans whose graph is one convolution that ucudnn can plan:
//   - where the program's own plan needs no more workspace than the handle allows (a forced
//     limit, else what was left of the memory budget when the process's first handle on the
//     device was made: graph_plan_limits), it runs as it is;
//   - otherwise, for a plan that stands in for its kernel (every one under a forced limit, one
//     per kernel under a budget: api/graph/stand_ins.h), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE
//     is ucudnn's plan's workspace, within the limit or what is left of the budget now (planned,
//     and benchmarked if need be, at that first query); the kernel's other plans stay cuDNN's;
//   - cudnnBackendExecute of it runs ucudnn's plan with the variant pack's pointers (a plan run
//     before its workspace was asked for stays cuDNN's: the program allocated cuDNN's);
//   - with micro-batch offers (UCUDNN_MICRO_BATCH_OFFERS; by default in a PyTorch program) under a
//     budget, the heuristics of such a graph also offer configurations whose plans are ucudnn's
//     (api/graph/offer.h), each planned under its size of what the program may reach, only for
//     sizes cuDNN's first configuration does not fit (a plan of one it fits is refused);
//   - cudnnBackendPopulateCudaGraph / UpdateCudaGraph of it are refused (NOT_SUPPORTED): cuDNN
//     would build its own plan into a graph with less workspace than that plan needs.
// Everything else reaches cuDNN unchanged, and every call reaches cuDNN first: a descriptor cuDNN
// refuses is never recorded. A plan whose planning fails stays cuDNN's (with its own workspace);
// an execution that fails falls back to cuDNN's plan where the workspace allows it.
//
// Thread-safe. ucudnn's own backend calls (in_internal_call) pass straight through.

#include <cudnn.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>

#include "api/context.h"
#include "api/graph/records.h"
#include "api/graph/stand_ins.h"
#include "core/conv_key.h"

namespace ucudnn::api {

/// The program's context of a handle (kept alive while the lease lives), or null for a handle
/// that is not one of the front-end's.
using ContextLease = std::shared_ptr<UcudnnContext>;
using ContextLookup = ContextLease (*)(cudnnHandle_t);

class GraphFrontEnd {
 public:
  using Create = cudnnStatus_t (*)(cudnnBackendDescriptorType_t, cudnnBackendDescriptor_t*);
  using Destroy = cudnnStatus_t (*)(cudnnBackendDescriptor_t);
  using Set = cudnnStatus_t (*)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t, cudnnBackendAttributeType_t,
                                int64_t, const void*);
  using Get = cudnnStatus_t (*)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t, cudnnBackendAttributeType_t,
                                int64_t, int64_t*, void*);
  using Finalize = cudnnStatus_t (*)(cudnnBackendDescriptor_t);
  using Execute = cudnnStatus_t (*)(cudnnHandle_t, cudnnBackendDescriptor_t, cudnnBackendDescriptor_t);
  using PopulateGraph = cudnnStatus_t (*)(cudnnHandle_t, cudnnBackendDescriptor_t, cudnnBackendDescriptor_t,
                                          cudaGraph_t);

  explicit GraphFrontEnd(ContextLookup lookup) : lookup_(lookup) {}

  cudnnStatus_t create(Create real, cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t* descriptor) noexcept;
  cudnnStatus_t destroy(Destroy real, cudnnBackendDescriptor_t descriptor) noexcept;
  /// cudnnBackendInitialize: the descriptor starts over, so does its record.
  cudnnStatus_t initialize(Finalize real, cudnnBackendDescriptor_t descriptor) noexcept;
  cudnnStatus_t set(Set real, cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                    cudnnBackendAttributeType_t type, int64_t count, const void* values) noexcept;
  cudnnStatus_t get(Get real, cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                    cudnnBackendAttributeType_t type, int64_t requested, int64_t* count, void* values) noexcept;
  cudnnStatus_t finalize(Finalize real, cudnnBackendDescriptor_t descriptor) noexcept;
  cudnnStatus_t execute(Execute real, cudnnHandle_t handle, cudnnBackendDescriptor_t plan,
                        cudnnBackendDescriptor_t variant_pack) noexcept;
  /// cudnnBackendPopulateCudaGraph and cudnnBackendUpdateCudaGraph (`function` names which).
  cudnnStatus_t populate_graph(const char* function, PopulateGraph real, cudnnHandle_t handle,
                               cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t variant_pack,
                               cudaGraph_t graph) noexcept;

 private:
  /// Who runs a plan ucudnn follows (api/graph/README.md). kKept: the program's own plan fits the
  /// limit and runs as it is; kUcudnn: ucudnn's plan within the limit; kCudnn: cuDNN's as a fallback
  /// (planning failed, or the plan ran before its workspace was asked).
  enum class PlanState { kUndecided, kUcudnn, kKept, kCudnn };

  /// An execution plan ucudnn takes over.
  struct Plan {
    ConvKey key;
    double alpha = 1.0, beta = 0.0;
    std::int64_t uid_x = 0, uid_w = 0, uid_y = 0;
    cudnnHandle_t handle = nullptr;   ///< the plan's handle: whose settings plan it
    std::size_t cudnn_workspace = 0;  ///< what cuDNN's own plan needs (the fallback's)
    int offer = -1;                   ///< built from micro-batch offer i (api/graph/offer.h); -1: none
    std::atomic<PlanState> state{PlanState::kUndecided};
    std::mutex deciding;  ///< one decision per plan, however many threads ask at once
    // Written once, before `state` leaves kUndecided (release), read after it (acquire).
    std::size_t limit = 0;      ///< what ucudnn planned under, once kUcudnn
    std::size_t workspace = 0;  ///< ucudnn's plan's, once kUcudnn
  };

  /// Follows a finalized plan; false where it is an offer that would only repeat cuDNN's first
  /// configuration (the program is told NOT_SUPPORTED).
  bool take_over(cudnnBackendDescriptor_t plan);
  /// What the program may reach (BudgetLimits::reachable) where the heuristics `descriptor` of the
  /// program's get offer micro-batching: a graph of one convolution, on a handle of ucudnn's with
  /// offers on (or auto, in a PyTorch program) and a budget (no fixed limit); nullopt where they do not.
  std::optional<std::size_t> offers(cudnnBackendDescriptor_t heuristics) const;
  /// How many offers to add to the results of `heuristics` (api::offers_wanted): every one where
  /// cuDNN's first configuration's workspace cannot be read.
  int offers_wanted_for(cudnnBackendDescriptor_t heuristics, std::size_t reachable) const;
  /// Decides `plan` once, when the program asks its workspace: kKept where the program's plan
  /// fits what the handle allows (api/graph/planning.h's graph_plan_limits); else kUcudnn with ucudnn's
  /// workspace under it where the plan is its kernel's stand-in; else kCudnn (not the stand-in,
  /// or planning failed).
  PlanState decide(Plan& plan, cudnnBackendDescriptor_t descriptor);
  /// Under a budget, whether a plan that does not fit is its kernel's stand-in, and the limit to
  /// plan it under (api/graph/stand_ins.h); nullopt: it stays cuDNN's.
  std::optional<std::size_t> stand_in_limit(const Plan& plan, cudnnBackendDescriptor_t descriptor,
                                            std::size_t limit);
  /// The state of a plan about to run: one whose workspace the program never asked (so it cannot
  /// have allocated ucudnn's) stays cuDNN's.
  PlanState settled_before_use(Plan& plan);
  std::shared_ptr<Plan> find(cudnnBackendDescriptor_t plan) const;
  void forget(cudnnBackendDescriptor_t descriptor);

  ContextLookup lookup_;
  GraphRecords records_;
  mutable std::shared_mutex mutex_;
  std::unordered_map<cudnnBackendDescriptor_t, std::shared_ptr<Plan>> plans_;
  GraphStandIns stand_ins_;
};

}  // namespace ucudnn::api
