#pragma once
// Runs one convolution operation through plain cuDNN and through a UcudnnHandle_t on the same
// random inputs and the same (random) initial output, and compares.

#include "gpu_test_support.h"

namespace ucudnn_test {

struct OpCheck {
  bool reference_ran = false;  ///< plain cuDNN had an algorithm for the problem
  double error = 0;            ///< relative_error(ucudnn, plain)
  UcudnnPlanInfo plan;
  size_t reported_workspace = 0;  ///< what cudnnGetConvolution*WorkspaceSize answered
  int first_algo = -1;            ///< algo of the get call's first answer
  int returned = 0;
};

/// Checks one op with get_v7 -> GetWorkspaceSize -> Convolution* through `handle`; `stream`
/// (may be null) is set on both handles. Fatal gtest failures on API errors.
void check_op(UcudnnHandle_t handle, cudnnHandle_t plain, const ConvProblem& problem, UcudnnConvolutionOp_t op,
              float alpha, float beta, std::mt19937& rng, OpCheck* result);

/// The virtual algorithm value of an op.
int micro_batched_algo(UcudnnConvolutionOp_t op);

}  // namespace ucudnn_test
