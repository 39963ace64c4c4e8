#pragma once
// The public API's enums and the library's own, converted in one place (the library calls and
// the tools both use these).

#include "core/batch_policy.h"
#include "core/candidate_kinds.h"
#include "core/search_mode.h"
#include "ucudnn/ucudnn.h"

namespace ucudnn::api {

/// False for a value the public enum does not define.
inline bool to_internal(UcudnnBatchSizePolicy_t policy, BatchSizePolicy* out) {
  switch (policy) {
    case UCUDNN_BATCH_SIZE_POLICY_ALL: *out = BatchSizePolicy::kAll; return true;
    case UCUDNN_BATCH_SIZE_POLICY_POWER_OF_TWO: *out = BatchSizePolicy::kPowerOfTwo; return true;
    case UCUDNN_BATCH_SIZE_POLICY_UNDIVIDED: *out = BatchSizePolicy::kUndivided; return true;
  }
  return false;
}

inline UcudnnBatchSizePolicy_t to_public(BatchSizePolicy policy) {
  switch (policy) {
    case BatchSizePolicy::kAll: return UCUDNN_BATCH_SIZE_POLICY_ALL;
    case BatchSizePolicy::kPowerOfTwo: return UCUDNN_BATCH_SIZE_POLICY_POWER_OF_TWO;
    case BatchSizePolicy::kUndivided: return UCUDNN_BATCH_SIZE_POLICY_UNDIVIDED;
  }
  return UCUDNN_BATCH_SIZE_POLICY_POWER_OF_TWO;
}

/// False for a value the public enum does not define.
inline bool to_internal(UcudnnCandidates_t candidates, CandidateSet* out) {
  switch (candidates) {
    case UCUDNN_CANDIDATES_LEGACY: *out = CandidateSet::kLegacy; return true;
    case UCUDNN_CANDIDATES_ENGINES: *out = CandidateSet::kEngines; return true;
    case UCUDNN_CANDIDATES_BOTH: *out = CandidateSet::kBoth; return true;
  }
  return false;
}

inline UcudnnCandidates_t to_public(CandidateSet candidates) {
  switch (candidates) {
    case CandidateSet::kLegacy: return UCUDNN_CANDIDATES_LEGACY;
    case CandidateSet::kEngines: return UCUDNN_CANDIDATES_ENGINES;
    case CandidateSet::kBoth: return UCUDNN_CANDIDATES_BOTH;
  }
  return UCUDNN_CANDIDATES_BOTH;
}

/// False for a value the public enum does not define.
inline bool to_internal(UcudnnSearchMode_t mode, SearchMode* out) {
  switch (mode) {
    case UCUDNN_SEARCH_FAST: *out = SearchMode::kFast; return true;
    case UCUDNN_SEARCH_EXHAUSTIVE: *out = SearchMode::kExhaustive; return true;
    default: return false;
  }
  return false;
}

inline UcudnnSearchMode_t to_public(SearchMode mode) {
  return mode == SearchMode::kExhaustive ? UCUDNN_SEARCH_EXHAUSTIVE : UCUDNN_SEARCH_FAST;
}

}  // namespace ucudnn::api
