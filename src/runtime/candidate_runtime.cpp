#include "runtime/candidate_runtime.h"

namespace ucudnn::runtime {

const CandidateKindRuntime& kind_runtime(CandidateKind kind) {
  // No default: a new kind without its runtime half fails to compile here (-Wswitch).
  switch (kind) {
    case CandidateKind::kLegacy: return legacy_candidates_runtime();
    case CandidateKind::kEngine: return engine_candidates_runtime();
  }
  return legacy_candidates_runtime();
}

}  // namespace ucudnn::runtime
