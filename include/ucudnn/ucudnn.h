#pragma once
/// \file ucudnn.h
/// μ-cuDNN: faster convolutions inside the same workspace, by splitting each mini-batch into
/// micro-batches (Oyama et al., 2018).
///
/// C and C++. Everything the library exports has C linkage and C types (`extern "C"`, plain
/// structs, enums), so a program built with any C++ standard library or ABI setting (for example
/// `_GLIBCXX_USE_CXX11_ABI=0`), a C program, or a foreign-function binding (ctypes) can use it.
/// The C++-only parts below (the handle's member functions, cuDNN's names overloaded for
/// UcudnnHandle_t, UcudnnPlan) are inline: they are compiled into the caller, in its own ABI, and
/// call the C functions.
///
/// Integration, in C++, is a type swap: declare the framework's handle as `UcudnnHandle_t`
/// instead of `cudnnHandle_t`. The overloads at the end of this file then intercept the
/// algorithm queries and convolutions; every other cuDNN function receives the underlying
/// `cudnnHandle_t` through the implicit conversion, unchanged. In C, call the `u`-prefixed
/// functions (ucudnnCreate, ucudnnConvolutionForward, ...) with a UcudnnHandle_t.
///
/// Pass UcudnnHandle_t all the way down. A function that takes a `cudnnHandle_t` (a framework
/// helper `void conv(cudnnHandle_t h, ...)`) receives the underlying cuDNN handle through the
/// implicit conversion, and the convolutions it makes are plain cuDNN's: they bypass ucudnn,
/// silently. Change such a parameter to UcudnnHandle_t too.
///
/// Settings, their scope and their precedence:
///
/// | call                              | scope                    | initial value from             |
/// |-----------------------------------|--------------------------|--------------------------------|
/// | ucudnnSetBatchSizePolicy          | one handle               | UCUDNN_BATCH_SIZE_POLICY       |
/// | ucudnnSetCandidates               | one handle               | UCUDNN_CANDIDATES              |
/// | ucudnnSetDefaultWorkspaceLimit    | one handle               | UCUDNN_DEFAULT_WORKSPACE_LIMIT |
/// | ucudnnSetGraphReplay              | one handle               | UCUDNN_GRAPH_REPLAY            |
/// | ucudnnSetLayerId                  | one handle               | (none: -1)                     |
/// | ucudnnSetDatabase                 | the process              | UCUDNN_DATABASE                |
/// | ucudnnSetSearchMode               | the process              | UCUDNN_SEARCH                  |
/// | ucudnnSetSystemDatabases          | the process              | UCUDNN_SYSTEM_DATABASES        |
/// | ucudnnSetTotalWorkspaceSize       | the process, per device  | UCUDNN_TOTAL_WORKSPACE_SIZE    |
/// | (no call)                         | every handle             | UCUDNN_FORCE_WORKSPACE_LIMIT   |
///
/// The environment is read once per process, at the first handle creation, and strictly (a bad
/// value fails handle creation, naming the variable). A new handle starts from the environment's
/// values; a per-handle setter changes that handle only (other handles, and handles made later,
/// keep the environment's value); a per-process setter replaces the environment's value for the
/// whole process from then on. UCUDNN_FORCE_WORKSPACE_LIMIT (for programs that cannot be
/// changed) caps the workspace limit of every call of every handle created while it is set,
/// whatever the call asks and whatever ucudnnSetDefaultWorkspaceLimit said; it has no setter.

#include <cudnn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ucudnn/intercepted_calls.h"
#include "ucudnn/version.h"

#ifdef __cplusplus
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>
#endif

// Everything declared here is the library's public API, exported from libucudnn.so; the rest of
// the library is hidden (tests/cpu/project/test_architecture.cpp checks the exported list).
#pragma GCC visibility push(default)

#ifdef __cplusplus
extern "C" {
#endif

/// The library state behind one handle: a cuDNN handle plus ucudnn's settings. Opaque.
struct UcudnnContext;

/// Returns the cuDNN handle owned by a context (NULL for a NULL context).
cudnnHandle_t ucudnnGetCudnnHandle(const struct UcudnnContext* context);

#ifdef __cplusplus
}  // extern "C"

/// A drop-in replacement for cudnnHandle_t.
///
/// Like cudnnHandle_t it is one pointer, trivially copyable, and copies refer to the same state:
/// frameworks that keep handles in `void*` slots or arrays keep working (see toPointer /
/// fromPointer). It has exactly one implicit conversion, to the underlying cudnnHandle_t, so
/// `cudnnSetStream(h, s)`, pooling, activation and every other non-intercepted cuDNN call accept
/// it. Create it with cudnnCreate(UcudnnHandle_t*), release it with cudnnDestroy(UcudnnHandle_t).
/// In C it is the plain struct `{ struct UcudnnContext* context; }`, of the same layout.
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
static_assert(std::is_standard_layout<UcudnnHandle_t>::value, "UcudnnHandle_t must have the C struct's layout");

extern "C" {
#else
/// See the C++ definition above: one pointer; `UcudnnHandle_t h = {0};` is the null handle.
typedef struct UcudnnHandle_t {
  struct UcudnnContext* context;
} UcudnnHandle_t;
#endif

/// The release of the library that was loaded (UCUDNN_VERSION of its own version.h), which may
/// be newer than the header a program was compiled with.
int ucudnnGetVersion(void);

// ---------------------------------------------------------------------------------------------
// Constants.

/// The virtual algorithm values that stand for "run ucudnn's micro-batch plan", returned first by
/// the get/find calls. Each equals cuDNN's `*_ALGO_COUNT` of its operation (one past the last real
/// algorithm): a table indexed by algorithm needs `CUDNN_CONVOLUTION_*_ALGO_COUNT + 1` entries,
/// and code that checks `algo < *_ALGO_COUNT` must let these through. Integer constant
/// expressions of cuDNN's enum types (usable in `case` labels, in C and C++).
#define UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED ((cudnnConvolutionFwdAlgo_t)CUDNN_CONVOLUTION_FWD_ALGO_COUNT)
#define UCUDNN_CONVOLUTION_BWD_DATA_ALGO_MICRO_BATCHED \
  ((cudnnConvolutionBwdDataAlgo_t)CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT)
#define UCUDNN_CONVOLUTION_BWD_FILTER_ALGO_MICRO_BATCHED \
  ((cudnnConvolutionBwdFilterAlgo_t)CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT)

/// Pass as a workspace limit to mean "the limit this handle would use for this convolution":
/// the one its last get/find call gave, else the handle's default.
#define UCUDNN_WORKSPACE_LIMIT_DEFAULT SIZE_MAX

/// The size of UcudnnMicroBatchRun::engine, its terminating NUL included. Engine configuration
/// ids ("eng<index>:k<knob type>=<value>,...") are far shorter (every knob type cuDNN 9 has, with
/// four-digit values, fits); a longer one fails ucudnnGetPlan with CUDNN_STATUS_NOT_SUPPORTED
/// rather than being cut.
#define UCUDNN_ENGINE_ID_MAX 512

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

// ---------------------------------------------------------------------------------------------
// Handles. All calls return CUDNN_STATUS_SUCCESS or a cuDNN error status; none throws. After a
// failure, ucudnnGetLastErrorMessage says why.

/// A new handle on the current CUDA device, with its own cuDNN handle and the environment's
/// settings. A bad UCUDNN_* value fails it with CUDNN_STATUS_BAD_PARAM naming the variable. The
/// first failed creation of a process is also logged, as one error line saying why (printed
/// whatever UCUDNN_LOG_LEVEL is, unless it is off; to UCUDNN_LOG_FILE where set); later ones only
/// set ucudnnGetLastErrorMessage. On failure `*handle` is left unchanged. C++:
/// cudnnCreate(UcudnnHandle_t*) is the same call.
cudnnStatus_t ucudnnCreate(UcudnnHandle_t* handle);
/// Destroys a handle and its cuDNN handle. C++: cudnnDestroy(UcudnnHandle_t) is the same call.
cudnnStatus_t ucudnnDestroy(UcudnnHandle_t handle);

// ---------------------------------------------------------------------------------------------
// Per-handle settings. Each overrides, for this handle only, the environment variable named.

/// The handle's batch-size policy (overrides UCUDNN_BATCH_SIZE_POLICY).
cudnnStatus_t ucudnnSetBatchSizePolicy(UcudnnHandle_t handle, UcudnnBatchSizePolicy_t policy);
cudnnStatus_t ucudnnGetBatchSizePolicy(UcudnnHandle_t handle, UcudnnBatchSizePolicy_t* policy);

/// What the handle's plans are made of (overrides UCUDNN_CANDIDATES). Plans already made for the
/// other setting stay cached; each setting has its own.
cudnnStatus_t ucudnnSetCandidates(UcudnnHandle_t handle, UcudnnCandidates_t candidates);
cudnnStatus_t ucudnnGetCandidates(UcudnnHandle_t handle, UcudnnCandidates_t* candidates);

/// The handle's per-kernel workspace limit where a call names none (cudnnFind*Algorithm,
/// cudnnGet*Algorithm_v7, PREFER_FASTEST). Overrides UCUDNN_DEFAULT_WORKSPACE_LIMIT; capped by
/// UCUDNN_FORCE_WORKSPACE_LIMIT where that is set. The getter answers what was set, uncapped.
cudnnStatus_t ucudnnSetDefaultWorkspaceLimit(UcudnnHandle_t handle, size_t bytes);
cudnnStatus_t ucudnnGetDefaultWorkspaceLimit(UcudnnHandle_t handle, size_t* bytes);

/// Whether the handle's convolutions that recur with the same buffers, workspace and scaling
/// factors are replayed as CUDA graphs (1, the default) or always issued as cuDNN calls (0).
/// Overrides UCUDNN_GRAPH_REPLAY. A replayed call costs the host one graph launch instead of one
/// legacy cuDNN call (50-150 us with cuDNN 9) per micro-batch; the GPU does the same work.
cudnnStatus_t ucudnnSetGraphReplay(UcudnnHandle_t handle, int enabled);
cudnnStatus_t ucudnnGetGraphReplay(UcudnnHandle_t handle, int* enabled);

/// WD: attributes the handle's following calls to a layer (-1, the default: none). Kernels of
/// different layers get separate segments even when their convolutions are identical; without
/// layer ids, identical kernels share one segment. No environment variable.
cudnnStatus_t ucudnnSetLayerId(UcudnnHandle_t handle, int layerId);
cudnnStatus_t ucudnnGetLayerId(UcudnnHandle_t handle, int* layerId);

// ---------------------------------------------------------------------------------------------
// Per-process settings. Each replaces the environment's value for every handle of the process.

/// Uses the SQLite benchmark database at `path` for the whole process from now on (overrides
/// UCUDNN_DATABASE); NULL or "" stops using one. A file that cannot be used (not a ucudnn
/// database, corrupt, from a newer ucudnn) is left untouched and CUDNN_STATUS_BAD_PARAM returned;
/// results then stay in memory. A read-only file serves lookups only.
cudnnStatus_t ucudnnSetDatabase(const char* path);
/// The path of the database the process uses ("" for none: never set, or the last one could not
/// be opened); opens UCUDNN_DATABASE first if nothing has yet. Copies it, with its NUL, into
/// `path` (`pathSize` bytes) and sets `*pathLength` (may be NULL) to its length without the NUL.
/// `path` NULL with `pathSize` 0 only asks the length. A buffer too small for it fails with
/// CUDNN_STATUS_BAD_PARAM, `*pathLength` set and `path` holding "".
cudnnStatus_t ucudnnGetDatabase(char* path, size_t pathSize, size_t* pathLength);

/// How new convolutions are benchmarked (process-wide; overrides UCUDNN_SEARCH=fast|exhaustive).
/// Fast (the default) measures micro-batch sizes from the whole batch down and stops where a
/// smaller size cannot improve the plan, and stops timing a candidate once it cannot beat a known
/// one; exhaustive times every candidate fully at every size of the policy. Plans made under the
/// other mode stay cached; each mode has its own.
typedef enum {
  UCUDNN_SEARCH_FAST = 0,
  UCUDNN_SEARCH_EXHAUSTIVE = 1,
  UCUDNN_SEARCH_MODE_MAX_ENUM = 0x7FFFFFFF,  ///< not a mode: any int a caller passes is a value (refused)
} UcudnnSearchMode_t;
cudnnStatus_t ucudnnSetSearchMode(UcudnnSearchMode_t mode);
cudnnStatus_t ucudnnGetSearchMode(UcudnnSearchMode_t* mode);
/// Looks rows up, after the database of ucudnnSetDatabase, in the read-only system databases
/// `paths` names (':'-separated, as PATH; empty entries ignored; at most 32), in order, for the whole process
/// from now on (overrides UCUDNN_SYSTEM_DATABASES); NULL or "" uses none. A lookup takes the first
/// database whose rows are complete for the workspace limit; new rows go to the user database
/// only. System databases are opened read-only and never created: a file that cannot be opened
/// (missing, not a ucudnn database, from a newer ucudnn) is skipped, the others are used, and
/// CUDNN_STATUS_BAD_PARAM is returned naming each file skipped.
cudnnStatus_t ucudnnSetSystemDatabases(const char* paths);

// Workspace division (WD): one workspace budget for all convolutions of the process on a device,
// divided among the kernels by a 0-1 integer program (GLPK) over each kernel's desirable
// (time, workspace) configurations. Get/find calls register kernels and answer a workspace of 0
// (the framework allocates nothing); the first convolution call, or ucudnnOptimize, solves the
// program and allocates one buffer; each kernel runs in its own segment of it, whatever
// workspace pointer the framework passes.

/// The WD budget, for the whole process (overrides UCUDNN_TOTAL_WORKSPACE_SIZE); each device's
/// kernels share one budget of this size. 0 returns to WR mode. A budget below 1 MiB is refused
/// with CUDNN_STATUS_BAD_PARAM (sizes are in bytes).
cudnnStatus_t ucudnnSetTotalWorkspaceSize(size_t bytes);
cudnnStatus_t ucudnnGetTotalWorkspaceSize(size_t* bytes);

/// Solves the division now for the kernels registered on the handle's device (optional: the first
/// convolution call does it). Kernels registered later cause a new division, with a warning. In WR
/// mode (no total set) there is nothing to divide: it succeeds and does nothing, so a framework
/// can call it after set-up whatever mode the user chose.
cudnnStatus_t ucudnnOptimize(UcudnnHandle_t handle);

/// The division of the handle's device. Like UcudnnStatistics, this struct never changes: a
/// release that reports more adds a new call (`_v2`, as cuDNN does) beside this one.
typedef struct UcudnnWorkspaceDivisionInfo {
  size_t budgetBytes;
  size_t bufferBytes;     ///< device memory allocated for all segments
  int kernels;
  int variables;          ///< binary variables of the integer program
  float solveMs;          ///< time to build and solve it
  float predictedTimeMs;  ///< sum over kernels of (calls per iteration) x (planned time)
  int optimizations;      ///< divisions solved so far on the device
} UcudnnWorkspaceDivisionInfo;
cudnnStatus_t ucudnnGetWorkspaceDivisionInfo(UcudnnHandle_t handle, UcudnnWorkspaceDivisionInfo* info);

// ---------------------------------------------------------------------------------------------
// The plan of one convolution (ABI-stable: C types only; see UcudnnPlan for C++).

/// In C++, the fields the caller sets get this header's values by default, so that a declared
/// `UcudnnPlanInfo info;` is a valid count-only query (0.1 code that declared one compiles and
/// asks for counts, rather than passing garbage). In C, use ucudnnInitPlanInfo.
#ifdef __cplusplus
#define UCUDNN_CXX_DEFAULT(value) = value
#else
#define UCUDNN_CXX_DEFAULT(value)
#endif

/// `count` consecutive cuDNN calls of one candidate on micro-batches of `size`.
typedef struct UcudnnMicroBatchRun {
  int size;
  int algo;  ///< cudnnConvolution*Algo_t value of the plan's operation; -1 for an engine
  cudnnMathType_t mathType;
  int count;
  float timeMs;  ///< predicted time of one call: in `runs` the longer of its GPU time and the host's
                 ///< time to issue it, in `replayedRuns` its GPU time
  size_t workspaceBytes;
  /// "" for a legacy algorithm, else the graph-API engine configuration
  /// ("eng<global index>:k<knob type>=<value>,..."), NUL-terminated.
  char engine[UCUDNN_ENGINE_ID_MAX];
  /// Output-channel pieces each call runs as: 1, or P > 1 cuDNN calls per micro-batch, each on
  /// K / P output channels (slices of y and of the filter, no copies). Added after 0.2.0: written
  /// only where runStructSize covers it.
  int channelPieces;
  /// 0, or the channel count each call's input was padded to with zero channels (a copy in the
  /// workspace, counted in workspaceBytes). Added after 0.2.0, as channelPieces.
  int paddedChannels;
  /// Forward's input-channel pieces each call runs as: 1, or P > 1 cuDNN calls per micro-batch, each
  /// on C / P input channels (a slice of x, and of the filter copied into the workspace), each
  /// adding into y. Added after 0.2.0, as channelPieces.
  int inputChannelPieces;
} UcudnnMicroBatchRun;

/// The plan ucudnn runs for one convolution, filled by ucudnnGetPlan.
///
/// Versioned by size: the caller sets `structSize` to sizeof(UcudnnPlanInfo) and `runStructSize`
/// to sizeof(UcudnnMicroBatchRun) of the header it was compiled with (ucudnnInitPlanInfo does), and
/// the library writes only the fields that lie within them, the runs `runStructSize` bytes apart.
/// A later release adds fields at the ends only, so a program compiled with this header keeps
/// working with it. The runs go to caller-owned arrays, up to their capacities.
typedef struct UcudnnPlanInfo {
  // Set by the caller.
  size_t structSize UCUDNN_CXX_DEFAULT(sizeof(UcudnnPlanInfo));            ///< sizeof(UcudnnPlanInfo)
  size_t runStructSize UCUDNN_CXX_DEFAULT(sizeof(UcudnnMicroBatchRun));    ///< the arrays' stride
  UcudnnMicroBatchRun* runs UCUDNN_CXX_DEFAULT(NULL);  ///< receives the runs (NULL with capacity 0: count only)
  int runCapacity UCUDNN_CXX_DEFAULT(0);               ///< elements of `runs`
  UcudnnMicroBatchRun* replayedRuns UCUDNN_CXX_DEFAULT(NULL);  ///< the replay plan's runs (NULL: count only)
  int replayedRunCapacity UCUDNN_CXX_DEFAULT(0);               ///< elements of `replayedRuns`
  // Set by ucudnnGetPlan.
  UcudnnConvolutionOp_t op;
  int batch;
  UcudnnBatchSizePolicy_t policy;
  size_t workspaceLimit;   ///< the limit it was planned under
  size_t workspaceBytes;   ///< what its calls want: the largest workspace of its runs and replayed runs
  float predictedTimeMs;   ///< sum of the runs' predicted times
  float undividedTimeMs;   ///< fastest single algorithm at the full batch within the limit, -1 if none
  int runCount;            ///< runs of the plan, larger micro-batches first
  /// Runs of what a call replayed as a CUDA graph runs, where that differs from `runs` (planned on
  /// GPU time alone, since a graph costs the host one launch); 0: the same as `runs`. Only
  /// recurring calls on a handle with graph replay on run it, and only where their workspace
  /// holds it; every other call runs `runs`.
  int replayedRunCount;
  int microBatchCount;     ///< cuDNN calls of the plan: the sum of its runs' counts
  /// 1: a backward filter split whose micro-batches are summed in FP32 (an FP16 or BF16 filter
  /// gradient: each micro-batch convolved twice, its exact partial added to an FP32 accumulator at
  /// the workspace's start, converted once at the end); 0: undivided, or summed in the filter's
  /// own type (FP32, FP64). Added after 0.2.0: written only where structSize covers it.
  int sumsInFp32;
} UcudnnPlanInfo;

/// Prepares `info` for ucudnnGetPlan: zeroes it, sets both sizes from this header and the arrays
/// (either may be NULL with capacity 0).
static inline void ucudnnInitPlanInfo(UcudnnPlanInfo* info, UcudnnMicroBatchRun* runs, int runCapacity,
                                      UcudnnMicroBatchRun* replayedRuns, int replayedRunCapacity) {
#ifdef __cplusplus
  *info = UcudnnPlanInfo();  // zeroes it, then takes the defaults above
#else
  memset(info, 0, sizeof(*info));
#endif
  info->structSize = sizeof(UcudnnPlanInfo);
  info->runStructSize = sizeof(UcudnnMicroBatchRun);
  info->runs = runs;
  info->runCapacity = runCapacity;
  info->replayedRuns = replayedRuns;
  info->replayedRunCapacity = replayedRunCapacity;
}

/// The plan for a convolution under a workspace limit (UCUDNN_WORKSPACE_LIMIT_DEFAULT: the
/// handle's), benchmarking it first if needed. In WD mode, with UCUDNN_WORKSPACE_LIMIT_DEFAULT,
/// the plan the workspace division chose once it has run. Descriptors in forward naming: x is the
/// input activation (dx for backward data), w the filter (dw for backward filter), y the output
/// activation (dy for both backward operations).
///
/// Fills the scalars and the counts, then copies the runs into the caller's arrays. Fails with
/// CUDNN_STATUS_BAD_PARAM, writing nothing, for a structSize or runStructSize below this
/// version's sizes (0: not initialized); with CUDNN_STATUS_BAD_PARAM, counts set and arrays not
/// written, where an array is given but holds fewer elements than its count (call again with
/// larger ones); with CUDNN_STATUS_NOT_SUPPORTED where an engine id does not fit
/// UCUDNN_ENGINE_ID_MAX. C++: the overload taking UcudnnPlan* does all of this.
cudnnStatus_t ucudnnGetPlan(UcudnnHandle_t handle, UcudnnConvolutionOp_t op, cudnnTensorDescriptor_t xDesc,
                            cudnnFilterDescriptor_t wDesc, cudnnConvolutionDescriptor_t convDesc,
                            cudnnTensorDescriptor_t yDesc, size_t workspaceLimit, UcudnnPlanInfo* plan);

// ---------------------------------------------------------------------------------------------
// Process-wide reports.

/// What ucudnn has done in this process, per operation (index: UcudnnConvolutionOp_t). Also
/// printed to stderr at exit when UCUDNN_STATS=1. These structs never change: a release that
/// counts more adds a new call (`_v2`) beside ucudnnGetStatistics.
typedef struct UcudnnOpStatistics {
  long long convolutionCalls;  ///< convolution calls intercepted
  long long splitCalls;        ///< ... that ran as more than one micro-batch
  long long plainCalls;        ///< ... that ran as plain cuDNN (planning failed, or the caller
                               ///< passed a real algorithm after being offered the plan)
  long long algorithmQueries;  ///< get/find calls intercepted
  long long timings;           ///< candidate timings the benchmarker ran
  double benchmarkSeconds;     ///< measuring, database lookups included
  double solveSeconds;         ///< the WR dynamic programs
  long long replayedCalls;     ///< convolution calls that ran as a replayed CUDA graph (the
                               ///< same buffers and scalars as an earlier call; UCUDNN_GRAPH_REPLAY)
} UcudnnOpStatistics;
typedef struct UcudnnStatistics {
  UcudnnOpStatistics op[3];
  long long divisions;         ///< workspace divisions solved
  double divisionSeconds;      ///< time in their integer programs
} UcudnnStatistics;
cudnnStatus_t ucudnnGetStatistics(UcudnnStatistics* statistics);

/// Which splits beyond micro-batches ran, per operation, since the process started.
typedef struct UcudnnSplitKinds {
  long long channelPieceCalls;  ///< convolution calls whose plan cut the output channels into pieces
  long long fp32SumCalls;       ///< half-precision backward filter calls whose micro-batches' filter
                                ///< gradients were summed in FP32
} UcudnnSplitKinds;
/// Set `structSize` to sizeof(UcudnnSplitStatistics) before the call: a later release may add
/// fields at the end, and fills only what the caller's size holds.
typedef struct UcudnnSplitStatistics {
  size_t structSize;
  UcudnnSplitKinds op[3];
  /// Per operation: calls that ran on the input padded with zero channels (a first layer's 3
  /// channels run as 4). Added after 0.2.0: written only where structSize covers it.
  long long paddedInputCalls[3];
} UcudnnSplitStatistics;
cudnnStatus_t ucudnnGetSplitStatistics(UcudnnSplitStatistics* statistics);

/// Where the benchmark searches' time went, per operation, since the process started.
typedef struct UcudnnSearchPhases {
  double setupSeconds;          ///< buffers, random fill, workspace allocation, descriptors
  double heuristicsSeconds;     ///< cuDNN's heuristics: engine offers, algorithm lists, validation
  double findSeconds;           ///< cudnnFind*AlgorithmEx (legacy candidates, exhaustive search)
  double planBuildSeconds;      ///< engine execution plans built to be measured
  double timingSeconds;         ///< warm-up and timed calls
  double databaseSeconds;       ///< lookups and stores in the benchmark databases
  long long plansBuilt;         ///< engine execution plans built to be measured
  long long timedInFull;        ///< candidates timed with every sample
  long long cutShort;           ///< candidates whose timing stopped once they could not win
  long long notTimed;           ///< candidates offered but not timed (the fast search's bound)
  long long sizesMeasured;      ///< micro-batch sizes measured
  long long sizesSkipped;       ///< sizes the fast search found could not improve the plan
} UcudnnSearchPhases;
/// Set `structSize` to sizeof(UcudnnSearchStatistics) before the call: a later release may add
/// fields at the end, and fills only what the caller's size holds.
typedef struct UcudnnSearchStatistics {
  size_t structSize;
  UcudnnSearchPhases op[3];
} UcudnnSearchStatistics;
cudnnStatus_t ucudnnGetSearchStatistics(UcudnnSearchStatistics* statistics);

/// A description of the last error a ucudnn call of the calling thread returned ("" if none).
/// Valid until the thread's next failing ucudnn call.
const char* ucudnnGetLastErrorMessage(void);

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
// The intercepted cuDNN calls, with C linkage: `u` + cuDNN's name, a UcudnnHandle_t first, then
// cuDNN's other parameters (ucudnnConvolutionForward, ucudnnFindConvolutionForwardAlgorithm, ...).
// In C++ the overloads of cuDNN's own names below are the same calls.
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
//
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
//   cuDNN 7 preference calls (the preference enums are above):
//                    cudnnGetConvolutionForwardAlgorithm, cudnnGetConvolutionBackwardDataAlgorithm,
//                    cudnnGetConvolutionBackwardFilterAlgorithm
#define UCUDNN_DECLARE_C_CALL(name, params, args) cudnnStatus_t u##name(UcudnnHandle_t handle, UCUDNN_UNPAREN params);
UCUDNN_INTERCEPTED_CALLS(UCUDNN_DECLARE_C_CALL)
UCUDNN_INTERCEPTED_CUDNN7_CALLS(UCUDNN_DECLARE_C_CALL)
#undef UCUDNN_DECLARE_C_CALL

#ifdef __cplusplus
}  // extern "C"
#endif

#pragma GCC visibility pop

#ifdef __cplusplus
// ---------------------------------------------------------------------------------------------
// C++ only, inline: compiled into the caller.

/// cuDNN's names for a UcudnnHandle_t: the same calls as ucudnnCreate and ucudnnDestroy.
inline cudnnStatus_t cudnnCreate(UcudnnHandle_t* handle) { return ucudnnCreate(handle); }
inline cudnnStatus_t cudnnDestroy(UcudnnHandle_t handle) { return ucudnnDestroy(handle); }

// Each intercepted call under cuDNN's own name, `cudnnStatus_t name(UcudnnHandle_t handle,
// <cuDNN's other parameters>)`, calling its C function u##name.
#define UCUDNN_DEFINE_HANDLE_OVERLOAD(name, params, args)                \
  inline cudnnStatus_t name(UcudnnHandle_t handle, UCUDNN_UNPAREN params) { \
    return u##name(handle, UCUDNN_UNPAREN args);                         \
  }
UCUDNN_INTERCEPTED_CALLS(UCUDNN_DEFINE_HANDLE_OVERLOAD)
UCUDNN_INTERCEPTED_CUDNN7_CALLS(UCUDNN_DEFINE_HANDLE_OVERLOAD)
#undef UCUDNN_DEFINE_HANDLE_OVERLOAD

/// One run of a UcudnnPlan: UcudnnMicroBatchRun with the engine id as a std::string.
struct UcudnnPlanRun {
  int size = 0;
  int algo = 0;
  cudnnMathType_t mathType = CUDNN_DEFAULT_MATH;
  int count = 0;
  float timeMs = 0;
  size_t workspaceBytes = 0;
  std::string engine;  ///< "" for a legacy algorithm
  int channelPieces = 1;  ///< see UcudnnMicroBatchRun::channelPieces
  int paddedChannels = 0;  ///< see UcudnnMicroBatchRun::paddedChannels
  int inputChannelPieces = 1;  ///< see UcudnnMicroBatchRun::inputChannelPieces
};

/// UcudnnPlanInfo with its runs in vectors, for C++ callers (see UcudnnPlanInfo for the fields).
/// Header-only, so its std::string and std::vector are the caller's own.
struct UcudnnPlan {
  UcudnnConvolutionOp_t op = UCUDNN_OP_FORWARD;
  int batch = 0;
  UcudnnBatchSizePolicy_t policy = UCUDNN_BATCH_SIZE_POLICY_POWER_OF_TWO;
  size_t workspaceLimit = 0;
  size_t workspaceBytes = 0;
  float predictedTimeMs = 0;
  float undividedTimeMs = -1;
  bool sumsInFp32 = false;                  ///< see UcudnnPlanInfo::sumsInFp32
  std::vector<UcudnnPlanRun> runs;          ///< larger micro-batches first
  std::vector<UcudnnPlanRun> replayedRuns;  ///< empty: the same as `runs`
  int microBatchCount() const {
    int n = 0;
    for (const auto& r : runs) n += r.count;
    return n;
  }
};

/// ucudnnGetPlan into a UcudnnPlan: the arrays are sized (and the call repeated) as the plan needs.
inline cudnnStatus_t ucudnnGetPlan(UcudnnHandle_t handle, UcudnnConvolutionOp_t op, cudnnTensorDescriptor_t xDesc,
                                   cudnnFilterDescriptor_t wDesc, cudnnConvolutionDescriptor_t convDesc,
                                   cudnnTensorDescriptor_t yDesc, size_t workspaceLimit, UcudnnPlan* plan) {
  if (!plan) return ucudnnGetPlan(handle, op, xDesc, wDesc, convDesc, yDesc, workspaceLimit,
                                  static_cast<UcudnnPlanInfo*>(nullptr));
  std::vector<UcudnnMicroBatchRun> runs(16), replayed(16);
  UcudnnPlanInfo info;
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  // A second try where the first arrays were too small (the counts say how large they must be);
  // a third in case the plan changed in between.
  for (int attempt = 0; attempt < 3; ++attempt) {
    ucudnnInitPlanInfo(&info, runs.data(), static_cast<int>(runs.size()), replayed.data(),
                       static_cast<int>(replayed.size()));
    status = ucudnnGetPlan(handle, op, xDesc, wDesc, convDesc, yDesc, workspaceLimit, &info);
    const bool too_small = info.runCount > info.runCapacity || info.replayedRunCount > info.replayedRunCapacity;
    if (status == CUDNN_STATUS_SUCCESS || !too_small) break;
    if (info.runCount > info.runCapacity) runs.resize(static_cast<size_t>(info.runCount));
    if (info.replayedRunCount > info.replayedRunCapacity) replayed.resize(static_cast<size_t>(info.replayedRunCount));
  }
  if (status != CUDNN_STATUS_SUCCESS) return status;
  auto copy_runs = [](const UcudnnMicroBatchRun* from, int count) {
    std::vector<UcudnnPlanRun> to(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
      to[i].size = from[i].size;
      to[i].algo = from[i].algo;
      to[i].mathType = from[i].mathType;
      to[i].count = from[i].count;
      to[i].timeMs = from[i].timeMs;
      to[i].workspaceBytes = from[i].workspaceBytes;
      to[i].engine = from[i].engine;
      to[i].channelPieces = from[i].channelPieces > 0 ? from[i].channelPieces : 1;  // 0: a library before it
      to[i].paddedChannels = from[i].paddedChannels;
      to[i].inputChannelPieces = from[i].inputChannelPieces > 0 ? from[i].inputChannelPieces : 1;
    }
    return to;
  };
  plan->op = info.op;
  plan->batch = info.batch;
  plan->policy = info.policy;
  plan->workspaceLimit = info.workspaceLimit;
  plan->workspaceBytes = info.workspaceBytes;
  plan->predictedTimeMs = info.predictedTimeMs;
  plan->undividedTimeMs = info.undividedTimeMs;
  plan->sumsInFp32 = info.sumsInFp32 != 0;
  plan->runs = copy_runs(runs.data(), info.runCount);
  plan->replayedRuns = copy_runs(replayed.data(), info.replayedRunCount);
  return status;
}
#endif  // __cplusplus
