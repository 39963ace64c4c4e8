#pragma once
// The kinds of candidate ucudnn measures and plans with, each declared once: cuDNN's legacy
// algorithms and the engine configurations of its graph API. This is the CUDA-free half of a
// kind (its name, how its rows are recognised and checked, how planning treats it); how a kind is
// measured and run on the GPU is its other half, runtime/candidate_runtime.h.
//
// Adding a kind: a CandidateKind value (and the CandidateSet values that hold it), its entry in
// candidate_kinds.cpp, and its runtime half (one file, listed in runtime/candidate_runtime.cpp).
// Code that must tell the kinds apart asks kind_of() and kind_info(), never the columns.

#include <array>
#include <string>
#include <vector>

#include "core/conv_op.h"
#include "core/expected.h"
#include "core/measurement.h"

namespace ucudnn {

/// The kind of one candidate; persisted by value (the database's coverage rows): append only.
enum class CandidateKind : int { kLegacy = 0, kEngine = 1 };
inline constexpr int kCandidateKindCount = 2;

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
  /// The candidate in a log line: "algo 3", "eng12:k3=1".
  std::string (*describe)(int algo, const std::string& engine);
  /// Checks that a row's candidate columns (algo, engine) are this kind's, in the one spelling it is
  /// stored by; the error says what is wrong.
  Status (*check_row)(const Measurement& m);
};

/// Every kind, in CandidateKind order (legacy first).
const std::array<CandidateKindInfo, kCandidateKindCount>& candidate_kinds();
const CandidateKindInfo& kind_info(CandidateKind kind);

/// The kind of a row (of its candidate columns).
CandidateKind kind_of_candidate(const std::string& engine);
inline CandidateKind kind_of(const Measurement& m) { return kind_of_candidate(m.engine); }

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

/// "algo 3" or the engine configuration id: the candidate in a log line, whatever its kind.
inline std::string describe_candidate(int algo, const std::string& engine) {
  return kind_info(kind_of_candidate(engine)).describe(algo, engine);
}
/// The same for a plan's run in output-channel pieces: "eng71 in 2 channel pieces" (1: as above).
inline std::string describe_candidate(int algo, const std::string& engine, int pieces) {
  return describe_candidate(algo, engine) + (pieces > 1 ? " in " + std::to_string(pieces) + " channel pieces" : "");
}

}  // namespace ucudnn
