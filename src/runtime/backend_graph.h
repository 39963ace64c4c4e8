#pragma once
// cuDNN's graph API (the backend descriptors) for one convolution: which engine configurations
// cuDNN offers for it, and execution plans built once from a configuration's id and run per call
// with a variant pack of the caller's pointers.
//
// Chosen over cudnn-frontend: ucudnn needs single-operation graphs only, and going straight to the
// backend keeps the per-call path to one variant pack and one cudnnBackendExecute (no tensor maps,
// no shared_ptr graph per call), with no header-only dependency to pin. Every raw backend call of
// ucudnn lives in backend_graph.cpp (graphs and plans) and engine_offers.cpp (the offers); the calls
// both make are runtime/backend_calls.h.
//
// Offered configurations: cuDNN's heuristic mode A, then its fallback list, deduplicated by id
// (UCUDNN_ENGINE_KNOBS=sweep: mode B too, and each configuration's knob variants).
// Left out: engines that compile kernels at run time (seconds of NVRTC per plan, unbounded
// benchmarking), except in the sweep, which measures the ceiling; tensor-core and down-converting engines where the
// caller's math type is FMA (or FP32 with NVIDIA_TF32_OVERRIDE=0); reduced-precision reductions where the caller asked
// for an FP32 compute type. Alpha and beta are part of a plan (the graph API has no per-call scalars).

#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/conv_key.h"
#include "core/knob_sweep.h"
#include "runtime/cuda_status.h"
#include "runtime/cudnn_shim.h"
#include "runtime/owned.h"

namespace ucudnn::runtime {

/// One engine configuration cuDNN offers for a convolution.
struct EngineOffer {
  std::string id;  ///< core/engine_config.h's engine configuration id
  bool deterministic = true;
  bool runtime_compiled = false;  ///< its plan compiles kernels (NVRTC) when finalized: sweep only
};

/// Whether the graph API can express `key` at all (data types, ranks); engines are not offered
/// otherwise.
bool engines_supported(const ConvKey& key);

/// The configurations cuDNN offers for `key` (at its batch), in cuDNN's order, filtered as above;
/// with KnobSearch::kSweep also heuristic mode B's and each one's knob variants (core/knob_sweep.h).
Status offer_engines(const ConvKey& key, KnobSearch knobs, std::vector<EngineOffer>* out);
/// The configurations one knob away from configuration `id` for `key` (core/knob_sweep.h's
/// knob_variants over its engine's knob ranges), filtered as offers are (never compiled at run time).
Status knob_neighbours(const ConvKey& key, const std::string& id, std::vector<EngineOffer>* out);

/// An execution plan of one engine configuration for one convolution at one batch size and one
/// pair of scaling factors. Immutable once built; executing it is thread-safe.
class CudnnExecutionPlan {
 public:
  /// Builds the plan of configuration `id` for `key`. Fails (NOT_SUPPORTED) where the
  /// configuration does not apply.
  static Status build(const ConvKey& key, const std::string& id, double alpha, double beta,
                      std::unique_ptr<CudnnExecutionPlan>* out);
  CudnnExecutionPlan(const CudnnExecutionPlan&) = delete;
  CudnnExecutionPlan& operator=(const CudnnExecutionPlan&) = delete;
  ~CudnnExecutionPlan();

  std::size_t workspace_bytes() const { return workspace_bytes_; }
  /// Queues the convolution on `handle`'s stream. Pointers must be 16-byte aligned (the plan
  /// promised cuDNN that much) and the workspace at least workspace_bytes().
  Status execute(cudnnHandle_t handle, const ConvBuffers& buffers, void* workspace, std::size_t workspace_size) const;

 private:
  CudnnExecutionPlan() = default;
  // The graph's descriptors stay alive as long as the plan made from them.
  std::vector<BackendDescriptor> keep_alive_;
  BackendDescriptor plan_;
  std::size_t workspace_bytes_ = 0;
};

/// The numerical notes (cudnnBackendNumericalNote_t) of the engine a finalized execution plan
/// of the program's runs: what that engine allows itself (tensor cores, down-converted inputs).
Status read_plan_numerical_notes(cudnnBackendDescriptor_t plan, std::set<int>* notes);
/// The workspace a finalized execution plan reports.
Status read_plan_workspace(cudnnBackendDescriptor_t plan, std::size_t* bytes);
/// The workspace the first configuration of finalized engine heuristics needs, read from a
/// configuration descriptor of ucudnn's own (CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, cuDNN 9.2 on), so
/// that none of the program's descriptors is filled twice.
Status read_first_configuration_workspace(cudnnBackendDescriptor_t heuristics, std::size_t* bytes);
/// What tells a finalized plan's engine configuration apart from another of the same graph: cuDNN's
/// serialization of the plan (its engine, knobs and graph), the same when a program rebuilds the
/// plan from the same engine and knobs (as XLA does at run time).
Status read_plan_identity(cudnnBackendDescriptor_t plan, std::string* identity);

/// The byte alignment engine plans require of every pointer.
inline constexpr std::size_t kEngineAlignment = 16;
inline bool engine_aligned(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % kEngineAlignment == 0; }

}  // namespace ucudnn::runtime
