#pragma once
// The runtime half of a kind of candidate (core/candidate_kinds.h is the CUDA-free half): how its
// candidates are measured, and how a plan runs the calls of its runs. One implementation per
// kind, each in a file of its own (runtime/legacy_candidates.cpp, runtime/engine_candidates.cpp);
// kind_runtime() finds it. The benchmarker and the executor know no kind.

#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/candidate_kinds.h"
#include "core/conv_key.h"
#include "core/measurement.h"
#include "optimize/wr_optimizer.h"
#include "runtime/cuda_status.h"
#include "runtime/cudnn_shim.h"

namespace ucudnn::runtime {
using ucudnn::optimize::MicroBatchSplit;


class BenchmarkRig;

/// What to measure at one micro-batch size.
struct SizeRequest {
  int micro_batch = 0;
  const std::vector<Measurement>* measured_before = nullptr;   ///< this kind's rows measured before (less workspace)
  const std::vector<Measurement>* other_kinds_rows = nullptr;  ///< other kinds' rows at this size: to beat too
  const std::vector<Measurement>* larger_size_rows = nullptr;  ///< every kind's rows at the next larger size measured
  std::size_t workspace_limit = SIZE_MAX;                      ///< the limit a plan is being made for
};

/// Measures one kind's candidates for one convolution (see runtime/benchmarker.h).
class KindMeasurer {
 public:
  virtual ~KindMeasurer() = default;
  /// Measures, at one micro-batch size, the candidates of the kind that `known` lacks; the fast
  /// search uses the rest of the request (runtime/contenders.h).
  virtual Status measure(const SizeRequest& request, std::vector<Measurement>* measured) = 0;
  /// The workspace limit up to which the rows are complete (SIZE_MAX: any limit).
  virtual std::size_t measured_up_to() const = 0;
};

/// A run whose engine plans need more workspace than the plan's limit allows: rows measured before
/// the database recorded what backward filter's accumulating plans need.
struct OversizedEngineRun {
  int size = 0;
  std::string engine;
  std::size_t needed_bytes = 0;
};

/// The scaling factors of one call of a plan, read.
struct CallScaling {
  bool given = true;  ///< false: the call passed a null alpha or beta (alpha and beta are then 1 and 0)
  double alpha = 1.0;
  double beta = 0.0;
  bool accumulates = false;  ///< later micro-batches run with beta = 1 (backward filter, split)
  bool sums_in_fp32 = false;  ///< every micro-batch runs with beta = 0 and beta = -1 (runtime/fp32_filter_sums.h)
};

/// One call of a run on one micro-batch.
struct MicroBatchCall {
  ConvBuffers buffers;                 ///< the micro-batch's slices of the call's buffers
  const void* alpha = nullptr;         ///< cuDNN's scaling pointers; beta points at 1 where the call
  const void* beta = nullptr;          ///< accumulates
  double alpha_value = 1.0;            ///< the same factors, read
  double beta_value = 0.0;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

/// How a plan queues the calls of its runs of one kind. Made once with the plan; const and
/// shared by every call of the plan, from any thread.
class KindRunner {
 public:
  virtual ~KindRunner() = default;
  /// The workspace the kind's runs need beyond what their rows say (engine plans tell theirs
  /// once built); 0 where the rows are exact.
  virtual std::size_t workspace_bytes() const = 0;
  /// Checks, before anything of a call is queued, that the kind's runs can run it: a call that
  /// failed half-way would leave the output partly written for the fallback to plain cuDNN.
  virtual Status check_call(const CallScaling& scaling, const ConvBuffers& buffers, const void* workspace,
                            std::size_t workspace_bytes) const = 0;
  /// Queues run `r` of the plan (one of this kind's) on one micro-batch.
  virtual Status enqueue(cudnnHandle_t handle, std::size_t r, const MicroBatchCall& call) const = 0;
};

/// The runtime half of one kind.
struct CandidateKindRuntime {
  /// A measurer over `rig` (which it sizes, e.g. the workspace, before measuring anything).
  Status (*make_measurer)(BenchmarkRig& rig, std::unique_ptr<KindMeasurer>* out);
  /// The runner of `wr`'s runs of this kind under `workspace_limit` (other runs are left alone).
  /// Fails with NOT_SUPPORTED where a run needs more workspace than the limit, listing those runs
  /// in `oversized` (for the planner to plan without).
  Status (*make_runner)(const ConvKey& key, const MicroBatchSplit& wr, std::size_t workspace_limit,
                        std::unique_ptr<KindRunner>* out, std::vector<OversizedEngineRun>* oversized);
};

const CandidateKindRuntime& kind_runtime(CandidateKind kind);

/// Each kind's half, defined in its own file.
const CandidateKindRuntime& legacy_candidates_runtime();
const CandidateKindRuntime& engine_candidates_runtime();

}  // namespace ucudnn::runtime
