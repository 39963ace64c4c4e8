#pragma once
/// \file ucudnn.h
/// μ-cuDNN: faster convolutions inside the same workspace, by splitting each mini-batch into
/// micro-batches (Oyama et al., 2018).
///
/// Integration is a type swap: declare the framework's handle as `UcudnnHandle_t` instead of
/// `cudnnHandle_t`. The overloads below then intercept the algorithm queries and convolutions;
/// every other cuDNN function receives the underlying `cudnnHandle_t` through the implicit
/// conversion, unchanged.

#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "ucudnn/intercepted_calls.h"

// Everything declared here is the library's public API, exported from libucudnn.so; the rest of
// the library is hidden (tests/cpu/test_architecture.cpp checks the exported list).
#pragma GCC visibility push(default)

/// The library state behind one handle: a cuDNN handle plus ucudnn's settings. Opaque.
struct UcudnnContext;

/// Returns the cuDNN handle owned by a context (nullptr for a null context).
cudnnHandle_t ucudnnGetCudnnHandle(const UcudnnContext* context);

/// A drop-in replacement for cudnnHandle_t.
///
/// Like cudnnHandle_t it is one pointer, trivially copyable, and copies refer to the same state:
/// frameworks that keep handles in `void*` slots or arrays keep working (see toPointer /
/// fromPointer). It has exactly one implicit conversion, to the underlying cudnnHandle_t, so
/// `cudnnSetStream(h, s)`, pooling, activation and every other non-intercepted cuDNN call accept
/// it. Create it with cudnnCreate(UcudnnHandle_t*), release it with cudnnDestroy(UcudnnHandle_t).
struct UcudnnHandle_t {
  UcudnnContext* context = nullptr;

  UcudnnHandle_t() = default;
  UcudnnHandle_t(std::nullptr_t) {}  // NOLINT: a null handle, as with cudnnHandle_t
  explicit UcudnnHandle_t(UcudnnContext* c) : context(c) {}

  /// The underlying cuDNN handle (the one implicit conversion).
  operator cudnnHandle_t() const { return ucudnnGetCudnnHandle(context); }  // NOLINT

  /// For frameworks that store handles as `void*`.
  void* toPointer() const { return context; }
  static UcudnnHandle_t fromPointer(void* p) { return UcudnnHandle_t(static_cast<UcudnnContext*>(p)); }

  friend bool operator==(UcudnnHandle_t a, UcudnnHandle_t b) { return a.context == b.context; }
  friend bool operator!=(UcudnnHandle_t a, UcudnnHandle_t b) { return a.context != b.context; }
  // Exact matches for comparisons with nullptr, which would otherwise be ambiguous between the
  // operators above and the built-in pointer comparison through the conversion.
  friend bool operator==(UcudnnHandle_t a, std::nullptr_t) { return a.context == nullptr; }
  friend bool operator==(std::nullptr_t, UcudnnHandle_t a) { return a.context == nullptr; }
  friend bool operator!=(UcudnnHandle_t a, std::nullptr_t) { return a.context != nullptr; }
  friend bool operator!=(std::nullptr_t, UcudnnHandle_t a) { return a.context != nullptr; }
};
static_assert(sizeof(UcudnnHandle_t) == sizeof(cudnnHandle_t), "UcudnnHandle_t must fit a handle slot");
static_assert(std::is_trivially_copyable<UcudnnHandle_t>::value, "UcudnnHandle_t must copy like a pointer");

/// The virtual algorithm values that stand for "run ucudnn's micro-batch plan". Returned by the
/// get/find overloads; one past cuDNN's last real algorithm of each operation.
constexpr cudnnConvolutionFwdAlgo_t UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
constexpr cudnnConvolutionBwdDataAlgo_t UCUDNN_CONVOLUTION_BWD_DATA_ALGO_MICRO_BATCHED =
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
constexpr cudnnConvolutionBwdFilterAlgo_t UCUDNN_CONVOLUTION_BWD_FILTER_ALGO_MICRO_BATCHED =
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;

/// Which micro-batch sizes the planner may use.
typedef enum {
  UCUDNN_BATCH_SIZE_POLICY_ALL = 0,           ///< every size 1..N
  UCUDNN_BATCH_SIZE_POLICY_POWER_OF_TWO = 1,  ///< 1, 2, 4, ... and N itself (the default)
  UCUDNN_BATCH_SIZE_POLICY_UNDIVIDED = 2,     ///< N only
} UcudnnBatchSizePolicy_t;

/// What plans are made of: cuDNN's legacy algorithms, the engine configurations of its graph API
/// (run from execution plans built once), or both (the default).
typedef enum {
  UCUDNN_CANDIDATES_LEGACY = 1,
  UCUDNN_CANDIDATES_ENGINES = 2,
  UCUDNN_CANDIDATES_BOTH = 3,
} UcudnnCandidates_t;

typedef enum {
  UCUDNN_OP_FORWARD = 0,
  UCUDNN_OP_BACKWARD_DATA = 1,
  UCUDNN_OP_BACKWARD_FILTER = 2,
} UcudnnConvolutionOp_t;

/// Pass as a workspace limit to mean "the limit this handle would use for this convolution":
/// the one its last get/find call gave, else the handle's default.
constexpr size_t UCUDNN_WORKSPACE_LIMIT_DEFAULT = SIZE_MAX;

/// `count` consecutive cuDNN calls of one candidate on micro-batches of `size`.
struct UcudnnMicroBatchRun {
  int size;
  int algo;  ///< cudnnConvolution*Algo_t value of the plan's operation; -1 for an engine
  cudnnMathType_t mathType;
  int count;
  float timeMs;  ///< predicted time of one call: in `runs` the longer of its GPU time and the host's time
                 ///< to issue it, in `replayedRuns` its GPU time
  size_t workspaceBytes;
  std::string engine;  ///< "" for a legacy algorithm, else the graph-API engine configuration
                       ///< ("eng<global index>:k<knob type>=<value>,...")
};

/// The plan ucudnn runs for one convolution.
struct UcudnnPlanInfo {
  UcudnnConvolutionOp_t op = UCUDNN_OP_FORWARD;
  int batch = 0;
  UcudnnBatchSizePolicy_t policy = UCUDNN_BATCH_SIZE_POLICY_POWER_OF_TWO;
  size_t workspaceLimit = 0;   ///< the limit it was planned under
  size_t workspaceBytes = 0;   ///< what its calls want: the largest workspace of its runs and replayed runs
  float predictedTimeMs = 0;   ///< sum of the runs' predicted times
  float undividedTimeMs = -1;  ///< fastest single algorithm at the full batch within the limit, -1 if none
  std::vector<UcudnnMicroBatchRun> runs;  ///< larger micro-batches first
  /// What a call replayed as a CUDA graph runs, where that differs from `runs` (planned on GPU time
  /// alone, since a graph costs the host one launch); empty: the same as `runs`. Only recurring
  /// calls on a handle with graph replay on run it, and only where their workspace holds it;
  /// every other call runs `runs`.
  std::vector<UcudnnMicroBatchRun> replayedRuns;
  int microBatchCount() const {
    int n = 0;
    for (const auto& r : runs) n += r.count;
    return n;
  }
};

// ---------------------------------------------------------------------------------------------
// Library calls. All return CUDNN_STATUS_SUCCESS or a cuDNN error status; none throws.

/// Sets the batch-size policy of a handle (overrides UCUDNN_BATCH_SIZE_POLICY).
cudnnStatus_t ucudnnSetBatchSizePolicy(UcudnnHandle_t handle, UcudnnBatchSizePolicy_t policy);
cudnnStatus_t ucudnnGetBatchSizePolicy(UcudnnHandle_t handle, UcudnnBatchSizePolicy_t* policy);

/// Sets what a handle's plans are made of (overrides UCUDNN_CANDIDATES). Plans already made for
/// the other setting stay cached; each setting has its own.
cudnnStatus_t ucudnnSetCandidates(UcudnnHandle_t handle, UcudnnCandidates_t candidates);
cudnnStatus_t ucudnnGetCandidates(UcudnnHandle_t handle, UcudnnCandidates_t* candidates);

/// Sets the per-kernel workspace limit used where a call names none (cudnnFind*Algorithm,
/// cudnnGet*Algorithm_v7, PREFER_FASTEST). Overrides UCUDNN_DEFAULT_WORKSPACE_LIMIT.
cudnnStatus_t ucudnnSetDefaultWorkspaceLimit(UcudnnHandle_t handle, size_t bytes);
cudnnStatus_t ucudnnGetDefaultWorkspaceLimit(UcudnnHandle_t handle, size_t* bytes);

/// Whether the handle's convolutions that recur with the same buffers, workspace and scaling
/// factors are replayed as CUDA graphs (1, the default) or always issued as cuDNN calls (0).
/// Overrides UCUDNN_GRAPH_REPLAY. A replayed call costs the host one graph launch instead of one
/// legacy cuDNN call (50-150 us with cuDNN 9) per micro-batch; the GPU does the same work.
cudnnStatus_t ucudnnSetGraphReplay(UcudnnHandle_t handle, int enabled);
cudnnStatus_t ucudnnGetGraphReplay(UcudnnHandle_t handle, int* enabled);

/// The plan for a convolution under a workspace limit, benchmarking it first if needed. In WD
/// mode, with UCUDNN_WORKSPACE_LIMIT_DEFAULT, the plan the workspace division chose once it has run.
/// Descriptors in forward naming: x is the input activation (dx for backward data), w the filter
/// (dw for backward filter), y the output activation (dy for both backward operations).
cudnnStatus_t ucudnnGetPlan(UcudnnHandle_t handle, UcudnnConvolutionOp_t op, cudnnTensorDescriptor_t xDesc,
                            cudnnFilterDescriptor_t wDesc, cudnnConvolutionDescriptor_t convDesc,
                            cudnnTensorDescriptor_t yDesc, size_t workspaceLimit, UcudnnPlanInfo* plan);

/// Uses the SQLite benchmark database at `path` for this process from now on (overrides
/// UCUDNN_DATABASE); nullptr or "" stops using one. A file that cannot be used (not a ucudnn
/// database, corrupt, from a newer ucudnn) is left untouched and CUDNN_STATUS_BAD_PARAM returned;
/// results then stay in memory. A read-only file serves lookups only.
cudnnStatus_t ucudnnSetDatabase(const char* path);

// ---------------------------------------------------------------------------------------------
// Workspace division (WD): one workspace budget for all convolutions of the process on a device,
// divided among the kernels by a 0-1 integer program (GLPK) over each kernel's desirable
// (time, workspace) configurations. Get/find calls register kernels and answer a workspace of 0
// (the framework allocates nothing); the first convolution call, or ucudnnOptimize, solves the
// program and allocates one buffer; each kernel runs in its own segment of it, whatever
// workspace pointer the framework passes.

/// Sets the process-wide WD budget (overrides UCUDNN_TOTAL_WORKSPACE_SIZE); 0 returns to WR
/// mode. A budget below 1 MiB is refused with CUDNN_STATUS_BAD_PARAM (sizes are in bytes).
cudnnStatus_t ucudnnSetTotalWorkspaceSize(size_t bytes);
cudnnStatus_t ucudnnGetTotalWorkspaceSize(size_t* bytes);

/// Solves the division now for the kernels registered on the handle's device (optional: the first
/// convolution call does it). Kernels registered later cause a new division, with a warning. In WR
/// mode (no total set) there is nothing to divide: it succeeds and does nothing, so a framework
/// can call it after set-up whatever mode the user chose.
cudnnStatus_t ucudnnOptimize(UcudnnHandle_t handle);

/// Attributes the handle's following calls to a layer (-1, the default: none). Kernels of
/// different layers get separate segments even when their convolutions are identical; without
/// layer ids, identical kernels share one segment.
cudnnStatus_t ucudnnSetLayerId(UcudnnHandle_t handle, int layerId);

struct UcudnnWorkspaceDivisionInfo {
  size_t budgetBytes = 0;
  size_t bufferBytes = 0;     ///< device memory allocated for all segments
  int kernels = 0;
  int variables = 0;          ///< binary variables of the integer program
  float solveMs = 0;          ///< time to build and solve it
  float predictedTimeMs = 0;  ///< sum over kernels of (calls per iteration) x (planned time)
  int optimizations = 0;      ///< divisions solved so far on the device
};
cudnnStatus_t ucudnnGetWorkspaceDivisionInfo(UcudnnHandle_t handle, UcudnnWorkspaceDivisionInfo* info);

/// What ucudnn has done in this process, per operation (index: UcudnnConvolutionOp_t). Also
/// printed to stderr at exit when UCUDNN_STATS=1.
struct UcudnnOpStatistics {
  long long convolutionCalls = 0;  ///< convolution calls intercepted
  long long splitCalls = 0;        ///< ... that ran as more than one micro-batch
  long long plainCalls = 0;        ///< ... that ran as plain cuDNN (planning failed, or the caller
                                   ///< passed a real algorithm after being offered the plan)
  long long algorithmQueries = 0;  ///< get/find calls intercepted
  long long timings = 0;           ///< candidate timings the benchmarker ran
  double benchmarkSeconds = 0;     ///< measuring, database lookups included
  double solveSeconds = 0;         ///< the WR dynamic programs
  long long replayedCalls = 0;     ///< convolution calls that ran as a replayed CUDA graph (the
                                   ///< same buffers and scalars as an earlier call; UCUDNN_GRAPH_REPLAY)
};
struct UcudnnStatistics {
  UcudnnOpStatistics op[3];
  long long divisions = 0;         ///< workspace divisions solved
  double divisionSeconds = 0;      ///< time in their integer programs
};
cudnnStatus_t ucudnnGetStatistics(UcudnnStatistics* statistics);
/// A description of the last error an intercepted call of this thread returned ("" if none).
const char* ucudnnGetLastErrorMessage();

// ---------------------------------------------------------------------------------------------
// cuDNN's legacy algorithm-preference enums, removed in cuDNN 8: defined here so that code
// written for cuDNN 6/7 (Caffe 1.0) compiles against cuDNN 9 once its handle type is swapped.
#if CUDNN_MAJOR >= 8
typedef enum {
  CUDNN_CONVOLUTION_FWD_NO_WORKSPACE = 0,
  CUDNN_CONVOLUTION_FWD_PREFER_FASTEST = 1,
  CUDNN_CONVOLUTION_FWD_SPECIFY_WORKSPACE_LIMIT = 2,
} cudnnConvolutionFwdPreference_t;
typedef enum {
  CUDNN_CONVOLUTION_BWD_DATA_NO_WORKSPACE = 0,
  CUDNN_CONVOLUTION_BWD_DATA_PREFER_FASTEST = 1,
  CUDNN_CONVOLUTION_BWD_DATA_SPECIFY_WORKSPACE_LIMIT = 2,
} cudnnConvolutionBwdDataPreference_t;
typedef enum {
  CUDNN_CONVOLUTION_BWD_FILTER_NO_WORKSPACE = 0,
  CUDNN_CONVOLUTION_BWD_FILTER_PREFER_FASTEST = 1,
  CUDNN_CONVOLUTION_BWD_FILTER_SPECIFY_WORKSPACE_LIMIT = 2,
} cudnnConvolutionBwdFilterPreference_t;
#endif

// ---------------------------------------------------------------------------------------------
// The intercepted cuDNN calls: same names and arguments as cuDNN's, with UcudnnHandle_t.
//
// Get/find calls plan the convolution under their workspace limit (the memoryLimitInBytes
// argument, the workspace given to Find*Ex, else the handle's default) and answer with the
// virtual algorithm *_MICRO_BATCHED first, reporting the plan's predicted time and workspace,
// followed by the real algorithms measured at the full batch. Get*WorkspaceSize answers the
// plan's workspace for the virtual algorithm and cuDNN's value for a real one. The convolution
// calls run ucudnn's plan for the workspace they are given, so a convolution never seen by a
// get/find call is planned on first use, whatever algo it is passed; a caller that was offered
// the plan and passes a real algorithm instead gets that algorithm, unsplit. If planning fails,
// they behave as plain cuDNN, with one warning.

cudnnStatus_t cudnnCreate(UcudnnHandle_t* handle);
cudnnStatus_t cudnnDestroy(UcudnnHandle_t handle);

// The intercepted calls are listed once, with their parameters, in ucudnn/intercepted_calls.h:
//   Forward:         cudnnGetConvolutionForwardAlgorithm_v7, cudnnFindConvolutionForwardAlgorithm,
//                    cudnnFindConvolutionForwardAlgorithmEx, cudnnGetConvolutionForwardWorkspaceSize,
//                    cudnnConvolutionForward
//   Backward data:   cudnnGetConvolutionBackwardDataAlgorithm_v7, cudnnFindConvolutionBackwardDataAlgorithm,
//                    cudnnFindConvolutionBackwardDataAlgorithmEx, cudnnGetConvolutionBackwardDataWorkspaceSize,
//                    cudnnConvolutionBackwardData
//   Backward filter: cudnnGetConvolutionBackwardFilterAlgorithm_v7, cudnnFindConvolutionBackwardFilterAlgorithm,
//                    cudnnFindConvolutionBackwardFilterAlgorithmEx, cudnnGetConvolutionBackwardFilterWorkspaceSize,
//                    cudnnConvolutionBackwardFilter
//   cuDNN 7 preference calls (these overloads only; the preference enums are above):
//                    cudnnGetConvolutionForwardAlgorithm, cudnnGetConvolutionBackwardDataAlgorithm,
//                    cudnnGetConvolutionBackwardFilterAlgorithm
// Each is declared here as `cudnnStatus_t name(UcudnnHandle_t handle, <cuDNN's other parameters>);`.
#define UCUDNN_DECLARE_HANDLE_OVERLOAD(name, params, args) \
  cudnnStatus_t name(UcudnnHandle_t handle, UCUDNN_UNPAREN params);
UCUDNN_INTERCEPTED_CALLS(UCUDNN_DECLARE_HANDLE_OVERLOAD)
UCUDNN_INTERCEPTED_CUDNN7_CALLS(UCUDNN_DECLARE_HANDLE_OVERLOAD)
#undef UCUDNN_DECLARE_HANDLE_OVERLOAD

#pragma GCC visibility pop
