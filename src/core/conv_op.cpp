#include "core/conv_op.h"

#include "core/spelling.h"

namespace ucudnn {
namespace {

// Values of cudnnConvolutionFwdAlgo_t, cudnnConvolutionBwdDataAlgo_t and
// cudnnConvolutionBwdFilterAlgo_t, in enum order (stable since cuDNN 7).
const char* const kForwardNames[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT",
                                     "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
const char* const kBackwardDataNames[] = {"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD",
                                          "WINOGRAD_NONFUSED"};
const char* const kBackwardFilterNames[] = {"ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD",
                                            "WINOGRAD_NONFUSED", "FFT_TILING"};

template <int N>
std::string lookup(const char* const (&names)[N], int algo) {
  if (algo >= 0 && algo < N) return names[algo];
  return "ALGO_" + std::to_string(algo);
}

// The spelling of the measurement files.
const Spelling<ConvOp> kOpNames[] = {
    {"fwd", ConvOp::kForward}, {"bwdd", ConvOp::kBackwardData}, {"bwdf", ConvOp::kBackwardFilter}};

}  // namespace

const char* short_name(ConvOp op) { return word_of(op, kOpNames, "?"); }

std::optional<ConvOp> parse_conv_op(const std::string& text) { return find_spelling<ConvOp>(text, kOpNames); }

std::optional<ConvOp> stored_conv_op(const std::string& text) {
  for (ConvOp op : kConvOps) {
    if (text == short_name(op)) return op;
  }
  return std::nullopt;
}

std::string algo_name(ConvOp op, int algo) {
  switch (op) {
    case ConvOp::kForward: return lookup(kForwardNames, algo);
    case ConvOp::kBackwardData: return lookup(kBackwardDataNames, algo);
    case ConvOp::kBackwardFilter: return lookup(kBackwardFilterNames, algo);
  }
  return "ALGO_" + std::to_string(algo);
}

int algo_count(ConvOp op) {
  switch (op) {
    case ConvOp::kForward: return 8;
    case ConvOp::kBackwardData: return 6;
    case ConvOp::kBackwardFilter: return 7;
  }
  return 0;
}

}  // namespace ucudnn
