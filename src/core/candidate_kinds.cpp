#include "core/candidate_kinds.h"

#include <cctype>
#include <utility>

#include "core/engine_config.h"
#include "core/spelling.h"

namespace ucudnn {
namespace {

// cuDNN's legacy algorithms: a row is an algorithm number of its op, with no engine id.
const CandidateKindInfo kLegacyKind = {
    CandidateKind::kLegacy,
    "legacy",
    "a legacy",
    "legacy",
    "legacy algorithms",
    /*supplementary=*/false,
    /*numbered=*/true,
    [](const std::string& engine) { return engine.empty(); },
    [](ConvOp op, long long algo) { return algo >= 0 && algo < algo_count(op); },
    [](ConvOp op) {
      return std::string("an algorithm of ") + short_name(op) + " from 0 to " + std::to_string(algo_count(op) - 1) +
             ", or -1 with an engine";
    },
    [](const Candidate& c) { return "algo " + std::to_string(c.algorithm); },
    [](const Candidate& c) -> Status {
      if (c.algorithm < 0) return Error::invalid("a legacy row needs an algorithm >= 0, not " + std::to_string(c.algorithm));
      return Status::success();
    },
};

// The engine configurations of cuDNN's graph API: a row has algo -1 and an engine configuration
// id (core/engine_config.h). An addition: where the graph API fails, legacy rows still make a plan.
const CandidateKindInfo kEngineKind = {
    CandidateKind::kEngine,
    "engine",
    "an engine",
    "engines",
    "graph-API engines",
    /*supplementary=*/true,
    /*numbered=*/false,
    [](const std::string& engine) { return !engine.empty(); },
    [](ConvOp, long long algo) { return algo == -1; },
    [](ConvOp) { return std::string("-1 in an engine row"); },
    [](const Candidate& c) { return c.engine_id; },
    [](const Candidate& c) -> Status {
      if (c.algorithm != -1) return Error::invalid("an engine row has algo -1, not " + std::to_string(c.algorithm));
      UCUDNN_TRY_ASSIGN(const EngineConfigId config, parse_engine_config(c.engine_id));
      const std::string canonical = format_engine_config(config);
      if (canonical != c.engine_id) {
        return Error::invalid("engine configuration '" + c.engine_id.substr(0, 80) + "' is not canonical ('" + canonical + "')");
      }
      return Status::success();
    },
};

}  // namespace

const std::array<CandidateKindInfo, kCandidateKindCount>& candidate_kinds() {
  static const std::array<CandidateKindInfo, kCandidateKindCount> kinds = {kLegacyKind, kEngineKind};
  return kinds;
}

const CandidateKindInfo& kind_info(CandidateKind kind) { return candidate_kinds()[static_cast<std::size_t>(kind)]; }

CandidateKind kind_of_candidate(const std::string& engine) {
  for (const CandidateKindInfo& info : candidate_kinds()) {
    if (info.recognises(engine)) return info.kind;
  }
  return CandidateKind::kLegacy;  // unreachable: the kinds' recognisers cover every engine column
}

Candidate candidate_from_columns(int algo, int math_type, std::string engine) {
  const CandidateKind kind = kind_of_candidate(engine);
  return Candidate{kind, algo, math_type, std::move(engine), 1, 1, 0};
}

std::string describe_candidate(const Candidate& candidate) {
  const std::string whole = kind_info(candidate.kind).describe(candidate);
  const int pieces = candidate.channel_pieces;
  std::string pieced = pieces > 1 ? whole + " in " + std::to_string(pieces) + " channel pieces" : whole;
  if (candidate.input_pieces > 1) pieced += " in " + std::to_string(candidate.input_pieces) + " input-channel pieces";
  const int padded = candidate.padded_channels;
  return padded > 0 ? pieced + " on the input padded to " + std::to_string(padded) + " channels" : pieced;
}

std::vector<CandidateKind> kinds_of(CandidateSet set) {
  std::vector<CandidateKind> kinds;
  for (const CandidateKindInfo& info : candidate_kinds()) {
    if (includes(set, info.kind)) kinds.push_back(info.kind);
  }
  return kinds;
}

Expected<CandidateSet> parse_candidate_set(const std::string& text) {
  std::vector<Spelling<CandidateSet>> sets;
  for (const CandidateKindInfo& info : candidate_kinds()) {
    sets.push_back({info.set_name, static_cast<CandidateSet>(1 << static_cast<int>(info.kind))});
  }
  sets.push_back({"both", CandidateSet::kBoth});
  return parse_spelling<CandidateSet>(text, sets, "candidate set");
}

const char* to_string(CandidateSet set) {
  if (set == CandidateSet::kBoth) return "both";
  for (const CandidateKindInfo& info : candidate_kinds()) {
    if (static_cast<int>(set) == 1 << static_cast<int>(info.kind)) return info.set_name;
  }
  return "unknown";
}

const char* to_string(CandidateKind kind) { return kind_info(kind).name; }

}  // namespace ucudnn
