#pragma once
// A convolution computed on the host in FP64 from the values the GPU holds (half and bfloat16
// convert exactly to float), the yardstick of the accuracy bound in docs/how-it-works.md: a split
// must be within twice the error of one undivided call. Shares no code with the library.

#include <vector>

#include "gpu_test_support.h"

namespace ucudnn_test {

/// Multiply-adds of `op` on `p` (to keep host references to problems that take well under a second).
double multiply_adds(const ConvProblem& p);

/// alpha * op(inputs) + beta * old over the op's output (y, dx or dw) as laid out on the GPU;
/// elements outside the tensor (padded strides) keep `old`. `x`, `y` and `w` are the tensors'
/// downloads; the op's own output among them is ignored.
std::vector<double> fp64_reference(const ConvProblem& p, UcudnnConvolutionOp_t op, const std::vector<float>& x,
                                   const std::vector<float>& y, const std::vector<float>& w,
                                   const std::vector<float>& old, double alpha, double beta);

/// The largest absolute difference over the largest reference magnitude (infinite on a NaN).
double error_against(const std::vector<float>& got, const std::vector<double>& want);

/// Half the unit roundoff of what `spec` computes in: its data type, or TF32 for FP32 with
/// default math (cuDNN may choose TF32 for one shape and not another). The least error one
/// undivided call may give: the floor of the accuracy bound.
double half_unit_roundoff(const ConvSpec& spec);

}  // namespace ucudnn_test
