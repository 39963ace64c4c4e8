#pragma once
// The kinds of candidate ucudnn measures and plans with, each declared once: cuDNN's legacy
// algorithms and the engine configurations of its graph API. This is the CUDA-free half of a
// kind (its name, how its rows are recognised and checked, how planning treats it); how a kind is
// measured and run on the GPU is its other half, runtime/candidate_runtime.h.
//
// Adding a kind: a CandidateKind value (core/candidate.h; and the CandidateSet values that hold
// it), its maker on Candidate, its entry in candidate_kinds.cpp, and its runtime half (one file,
// listed in runtime/candidate_runtime.cpp). Code that must tell the kinds apart asks a
// candidate's kind and kind_info(), never the columns; only candidate_from_columns reads those.

#include <array>
#include <string>
#include <vector>

#include "core/candidate.h"
#include "core/conv_op.h"
#include "core/expected.h"
#include "core/measurement.h"

namespace ucudnn {

/// The kinds a handle plans with; a kind's bit is 1 << its value.
enum class CandidateSet : int { kLegacy = 1, kEngines = 2, kBoth = 3 };

/// What one kind of candidate is, CUDA-free.
struct CandidateKindInfo {
  CandidateKind kind;
  const char* name;         ///< one candidate's kind in logs and messages: "legacy", "engine"
  const char* article;      ///< the name with its article: "a legacy", "an engine"
  const char* set_name;     ///< the set of this kind alone (UCUDNN_CANDIDATES): "legacy", "engines"
  const char* described;    ///< the kind's candidates in a sentence: "graph-API engines"
  /// An addition to the other kinds: where its rows cannot be gathered, a set that also holds a
  /// kind that is not an addition plans without them.
  bool supplementary;
  /// Whether a row's algo column is a cuDNN algorithm number, which get/find calls can answer with.
  bool numbered;
  /// Whether a row with this engine column is of this kind (rows carry no kind column).
  bool (*recognises)(const std::string& engine);
  /// Whether `algo` is an algo column this kind allows for `op`.
  bool (*algo_allowed)(ConvOp op, long long algo);
  /// What the algo column of a row of `op` of this kind must be, for an error message.
  std::string (*expected_algo)(ConvOp op);
  /// The candidate (on the whole kernel) in a log line: "algo 3", "eng12:k3=1".
  std::string (*describe)(const Candidate& candidate);
  /// Checks that a row's candidate (its algo and engine columns) is this kind's, in the one
  /// spelling it is stored by; the error says what is wrong.
  Status (*check_row)(const Candidate& candidate);
};

/// Every kind, in CandidateKind order (legacy first).
const std::array<CandidateKindInfo, kCandidateKindCount>& candidate_kinds();
const CandidateKindInfo& kind_info(CandidateKind kind);

/// The kind of a stored row, told by its engine column (rows carry no kind column).
CandidateKind kind_of_candidate(const std::string& engine);
/// The candidate of a stored row's columns (database, CSV table), as read: the kind its engine
/// column tells, the algo column kept as it is (kNoAlgorithm in an engine row that is well formed).
Candidate candidate_from_columns(int algo, int math_type, std::string engine);

inline bool includes(CandidateSet set, CandidateKind kind) {
  return (static_cast<int>(set) & (1 << static_cast<int>(kind))) != 0;
}
/// The kinds of a set, in CandidateKind order (legacy first).
std::vector<CandidateKind> kinds_of(CandidateSet set);

/// Parses "legacy", "engines" or "both" (case-insensitive).
Expected<CandidateSet> parse_candidate_set(const std::string& text);
/// The canonical spelling: "legacy", "engines", "both".
const char* to_string(CandidateSet set);
const char* to_string(CandidateKind kind);

/// The candidate in a log line, whatever its kind: "algo 3", the engine configuration id, and in
/// output-channel pieces "eng71 in 2 channel pieces".
std::string describe_candidate(const Candidate& candidate);

}  // namespace ucudnn
