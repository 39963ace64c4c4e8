#pragma once
// Runs one convolution operation through plain cuDNN and through a UcudnnHandle_t on the same
// random inputs and the same (random) initial output, and compares.

#include "gpu_test_support.h"
#include "folder_namespaces.h"

namespace ucudnn_test {

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

/// Plain cuDNN's convolution call of `op` (x, w, y in forward naming), written out here so the
/// reference shares no code with the library under test.
cudnnStatus_t plain_convolution(cudnnHandle_t plain, const ConvProblem& problem, UcudnnConvolutionOp_t op, int algo,
                                float alpha, float beta, void* x, void* w, void* y, void* workspace,
                                size_t workspace_bytes);

/// relative_error of an op's output (y, dx or dw) over its logical elements.
double output_error(const ConvProblem& problem, UcudnnConvolutionOp_t op, const DeviceArray& got,
                    const DeviceArray& want);

/// The virtual algorithm value of an op.
int micro_batched_algo(UcudnnConvolutionOp_t op);

}  // namespace ucudnn_test
