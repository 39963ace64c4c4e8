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

/// The floor of the accuracy bound: the error one undivided call may give at the least. Half the
/// unit roundoff of the data type; for FP32 with default math, TF32's whole unit roundoff (2^-11):
/// cuDNN may round each input to TF32's 10 bits (for one shape and not another, one micro-batch
/// size and not another), so a product carries up to twice that, and two such calls differ by
/// as much (on the H200, FP32 backward filter algo 1 in micro-batches: 6.7e-4 and 7.0e-4 against
/// undivided calls' 2.5e-4 and 3.0e-4, both near 2^-12).
double accuracy_floor(const ConvSpec& spec);

}  // namespace ucudnn_test
