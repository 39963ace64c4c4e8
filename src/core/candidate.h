#pragma once
// One candidate: what ucudnn can run for one convolution kernel, whatever its kind. Rows,
// plans and the optimisers compare, group and order candidates as a whole (operator==,
// operator<), so a new field is one line here plus its comparisons; the kinds themselves (their
// names, checks, how they are stored) are core/candidate_kinds.h.

#include <string>
#include <tuple>
#include <utility>

namespace ucudnn {

/// The kind of one candidate; persisted by value (the database's coverage rows): append only.
enum class CandidateKind : int { kLegacy = 0, kEngine = 1 };
inline constexpr int kCandidateKindCount = 2;

/// A legacy cuDNN algorithm or an engine configuration of cuDNN's graph API, possibly run in
/// output-channel pieces or on a padded copy of the input. Made by its kind's maker (Candidate::legacy,
/// Candidate::engine) or, from a stored row's columns, by candidate_from_columns (core/candidate_kinds.h).
struct Candidate {
  /// The algorithm of a kind that has none (an engine): the database's algo column for it.
  static constexpr int kNoAlgorithm = -1;

  CandidateKind kind = CandidateKind::kLegacy;
  int algorithm = 0;      ///< cudnnConvolution*Algo_t value of the kernel's op; kNoAlgorithm for an engine
  int math_type = 0;      ///< cudnnMathType_t value (engines: the caller's)
  std::string engine_id;  ///< an engine's configuration id (core/engine_config.h); empty for a legacy algorithm
  /// 1: one call on the whole kernel. P > 1: P calls, each on 1/P of the output channels
  /// (optimize/channel_pieces.h); only the planner makes these, never stored as such.
  int channel_pieces = 1;
  /// 1: all input channels at once. P > 1: forward in P calls, each on 1/P of the input channels
  /// and adding into y (optimize/channel_pieces.h); only the planner makes these, never stored.
  int input_pieces = 1;
  /// 0: the input as the caller gave it. C > 0: the input (and filter) copied with zero channels
  /// up to C first (optimize/padded_input.h); only the planner makes these, never stored as such.
  int padded_channels = 0;

  static Candidate legacy(int algorithm, int math_type) {
    return Candidate{CandidateKind::kLegacy, algorithm, math_type, std::string(), 1, 1, 0};
  }
  static Candidate engine(std::string id, int math_type) {
    return Candidate{CandidateKind::kEngine, kNoAlgorithm, math_type, std::move(id), 1, 1, 0};
  }
  /// This candidate run in `pieces` output-channel pieces.
  Candidate in_channel_pieces(int pieces) const {
    Candidate pieced = *this;
    pieced.channel_pieces = pieces;
    return pieced;
  }
  /// This candidate run in `pieces` input-channel pieces.
  Candidate in_input_pieces(int pieces) const {
    Candidate pieced = *this;
    pieced.input_pieces = pieces;
    return pieced;
  }
  /// This candidate run on the input padded to `channels` channels.
  Candidate with_padded_channels(int channels) const {
    Candidate padded = *this;
    padded.padded_channels = channels;
    return padded;
  }
};

namespace detail {
// Every field of a candidate, in the order candidates sort by: what == and < compare.
inline auto candidate_fields(const Candidate& c) {
  return std::tie(c.algorithm, c.math_type, c.engine_id, c.channel_pieces, c.input_pieces, c.padded_channels, c.kind);
}
}  // namespace detail

inline bool operator==(const Candidate& a, const Candidate& b) {
  return detail::candidate_fields(a) == detail::candidate_fields(b);
}
inline bool operator!=(const Candidate& a, const Candidate& b) { return !(a == b); }
/// In the order of a stored row's columns (algo, math_type, engine), then pieces: the order a
/// plan's runs of one size are listed in. The kind last: the columns already tell it.
inline bool operator<(const Candidate& a, const Candidate& b) {
  return detail::candidate_fields(a) < detail::candidate_fields(b);
}
inline bool operator>(const Candidate& a, const Candidate& b) { return b < a; }

}  // namespace ucudnn
