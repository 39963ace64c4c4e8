#pragma once
// Runs one convolution operation through plain cuDNN and through a UcudnnHandle_t on the same
// random inputs and the same (random) initial output, and compares.

#include <memory>
#include <string>

#include "core/conv_key.h"
#include "gpu_test_support.h"
#include "runtime/executor.h"

namespace ucudnn_test {

/// The (alpha, beta) pairs the exactness tests run: plain, scaled with some of the old output,
/// and accumulating.
inline constexpr float kScales[][2] = {{1.0f, 0.0f}, {0.5f, 0.25f}, {1.0f, 1.0f}};

struct OpCheck {
  bool reference_ran = false;   ///< plain cuDNN could run the problem
  bool same_algorithm = false;  ///< the reference ran the plan's (only) algorithm, undivided
  double error = 0;            ///< relative_error(ucudnn, plain)
  UcudnnPlan plan;
  size_t reported_workspace = 0;  ///< what cudnnGetConvolution*WorkspaceSize answered
  int first_algo = -1;            ///< algo of the get call's first successful answer (-1: none)
  size_t least_memory = SIZE_MAX;  ///< the least workspace of the get call's successful answers
  int returned = 0;
};

/// Checks one op: get_v7 -> GetWorkspaceSize -> Convolution* through `handle`, then plain cuDNN
/// on the full batch (the plan's algorithm where it runs undivided). Fatal failures on API errors.
void check_op(UcudnnHandle_t handle, cudnnHandle_t plain, const ConvProblem& problem, UcudnnConvolutionOp_t op,
              float alpha, float beta, std::mt19937& rng, OpCheck* result);

/// The stated tolerance on relative_error:
///  - the plan's algorithm as reference: FP32 with FMA math 1e-4 (splitting changes only the order
///    of the batch sum in backward filter); FP32 with default math 5e-3 (TF32 may be used, whose
///    rounding is 2^-11); FP16 1e-2 (FP16 rounding of the output is 2^-11 of the value); BF16 2e-2
///    (its rounding is 2^-8).
///  - another algorithm as reference (the plan's cannot run undivided): 5e-2, since cuDNN's FFT and
///    Winograd algorithms differ from its GEMM ones by up to about 1e-2 even in FP32.
double tolerance(const ConvSpec& spec, bool same_algorithm);

/// Plain cuDNN's first heuristic algorithm (cudnnGet*Algorithm_v7) that succeeds within the
/// workspace, or -1.
int plain_heuristic_algo(cudnnHandle_t plain, const ConvProblem& problem, UcudnnConvolutionOp_t op,
                         size_t workspace_limit);

/// One op of a problem, ready to plan: the algorithm plain cuDNN's heuristics pick for it (the
/// reference a plan is compared with) and its key.
struct ReferenceKernel {
  UcudnnConvolutionOp_t op;
  int algo;
  ucudnn::ConvKey key;
};
/// The problem's ops, in op order, that plain cuDNN has an algorithm for within `workspace_limit`.
/// A key the library cannot read fails the test (EXPECT) and leaves its op out.
std::vector<ReferenceKernel> reference_kernels(cudnnHandle_t plain, const ConvProblem& problem, size_t workspace_limit);

/// Plain cuDNN's convolution call of `op` (x, w, y in forward naming), written out in the tests so
/// the reference shares no code with the library under test.
cudnnStatus_t plain_convolution(cudnnHandle_t plain, const ConvProblem& problem, UcudnnConvolutionOp_t op, int algo,
                                float alpha, float beta, void* x, void* w, void* y, void* workspace,
                                size_t workspace_bytes);

/// ucudnn's convolution call of `op` (x, w, y in forward naming): its UcudnnHandle_t overload.
cudnnStatus_t ucudnn_convolution(UcudnnHandle_t handle, const ConvProblem& problem, UcudnnConvolutionOp_t op, int algo,
                                 float alpha, float beta, void* x, void* w, void* y, void* workspace,
                                 size_t workspace_bytes);

/// relative_error of an op's output (y, dx or dw) over its logical elements.
double output_error(const ConvProblem& problem, UcudnnConvolutionOp_t op, const DeviceArray& got,
                    const DeviceArray& want);

/// The virtual algorithm value of an op.
int micro_batched_algo(UcudnnConvolutionOp_t op);

/// One op's device tensors (x, w, y in forward naming, in the problem's data type) and
/// `reference`, a copy of the op's output (y, dx or dw) for plain cuDNN to write: both runs start
/// from the same output, which beta reads.
struct OpTensors {
  OpTensors(const ConvProblem& problem, UcudnnConvolutionOp_t op);

  /// Whether x, y and w were allocated.
  bool allocated() const;
  /// Random x, y and w (drawn in that order), and the reference set to the output's values.
  void fill_random(std::mt19937& rng);
  /// The op's output: y, dx or dw.
  DeviceArray& output();
  const DeviceArray& output() const;
  /// Plain cuDNN's `algo` on the same inputs, writing the reference (not synchronised).
  cudnnStatus_t run_reference(cudnnHandle_t plain, int algo, float alpha, float beta, void* workspace,
                              size_t workspace_bytes);
  /// output_error of the output against the reference.
  double error() const;

  const ConvProblem& problem;
  const UcudnnConvolutionOp_t op;
  DeviceArray x, y, w, reference;
};

/// The ConvKey of `op` on the problem's descriptors (device 0), as the library reads it.
::testing::AssertionResult conv_key_of(const ConvProblem& problem, UcudnnConvolutionOp_t op, ucudnn::ConvKey* key);
/// The same for a spec whose descriptors are needed for nothing else; fails where cuDNN refuses it.
::testing::AssertionResult conv_key_of(const ConvSpec& spec, UcudnnConvolutionOp_t op, ucudnn::ConvKey* key);

/// One run of a hand-made split: `size` samples in one call of `algo` (-1 with `engine`, an engine
/// configuration id) at `math`.
ucudnn::optimize::MicroBatchRun run_of(int size, int algo, cudnnMathType_t math, const std::string& engine = "");

/// The batch of `n` in micro-batches of random sizes (one call of the whole batch half of the time),
/// each run a call of `candidate`.
ucudnn::optimize::MicroBatchSplit random_split(int n, const ucudnn::Candidate& candidate, std::mt19937& rng);

/// FP16 or BF16 with default math (each 2 in 10), or FP32 with FMA or default math (3 in 10 each).
void random_precision(std::mt19937& rng, ConvSpec* spec);

/// An executable plan of a hand-made split (policy `all`, no undivided time).
::testing::AssertionResult build_plan(const ucudnn::ConvKey& key, size_t workspace_limit,
                                      const ucudnn::optimize::MicroBatchSplit& split,
                                      std::unique_ptr<ucudnn::runtime::ExecutablePlan>* plan);

/// What running a hand-made split found (run_split_checked).
struct SplitRun {
  bool ran = false;          ///< false: cuDNN refused the plan or its call (nothing checked)
  double fp64_ratio = -1.0;  ///< the split's FP64 error over the reference run's (floored); -1: not checked
};

/// Builds `split` of `key` and runs it with scale = {alpha, beta} on `t`'s buffers, the output reset
/// to `start` (what beta reads) and `workspace` of kAmpleWorkspace bytes. Where it ran: the output
/// within `tolerance` of the reference run (EXPECT), and where `want` (the FP64 reference) is not
/// empty, within twice the reference run's error against it, floored at accuracy_floor (EXPECT).
SplitRun run_split_checked(cudnnHandle_t plain, const ucudnn::ConvKey& key,
                           const ucudnn::optimize::MicroBatchSplit& split, OpTensors& t, const DeviceArray& start,
                           const float* scale, double tolerance, const std::vector<double>& want, void* workspace);

}  // namespace ucudnn_test
