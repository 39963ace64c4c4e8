#pragma once
// The three convolution operations and their algorithm names, independent of cuDNN's headers
// so that the offline planner builds and runs without them.

#include <optional>
#include <string>

namespace ucudnn {

enum class ConvOp { kForward = 0, kBackwardData = 1, kBackwardFilter = 2 };

/// Every op, in the order of their values (the index of per-op arrays, the public API's included).
inline constexpr ConvOp kConvOps[] = {ConvOp::kForward, ConvOp::kBackwardData, ConvOp::kBackwardFilter};

/// "fwd", "bwdd", "bwdf": the spelling of the measurement files.
const char* short_name(ConvOp op);
/// The op a person's word names (a table's column, an option): case, '-' and '_' as every
/// setting's words (core/spelling.h).
std::optional<ConvOp> parse_conv_op(const std::string& text);
/// The op a stored word names: exactly short_name's spelling. What ucudnn wrote has one spelling,
/// and a database's queries compare the text as it is: a row stored as "FWD" is no row of "fwd".
std::optional<ConvOp> stored_conv_op(const std::string& text);

/// The cudnnConvolution*Algo_t name without its prefix, e.g. "IMPLICIT_PRECOMP_GEMM";
/// "ALGO_<n>" for a value this build does not know.
std::string algo_name(ConvOp op, int algo);

/// The number of real cuDNN algorithms of the op (cudnnConvolution*Algo_t's COUNT value).
int algo_count(ConvOp op);

}  // namespace ucudnn
