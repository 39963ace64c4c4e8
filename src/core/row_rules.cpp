#include "core/row_rules.h"

#include <cstdint>
#include <limits>
#include <string>

#include "core/candidate_kinds.h"
#include "core/cudnn_values.h"

namespace ucudnn {

int max_math_type() { return cudnn_values::kFmaMath; }

Status check_measurement(ConvOp op, const Measurement& m) {
  if (m.micro_batch < 1 || m.micro_batch > kMaxMicroBatch) {
    return Error::invalid("its micro-batch " + std::to_string(m.micro_batch) + " is not from 1 to " +
                 std::to_string(kMaxMicroBatch));
  }
  const Candidate& candidate = m.candidate;
  const CandidateKindInfo& kind = kind_info(candidate.kind);
  UCUDNN_TRY(kind.check_row(candidate));  // the kind's own columns first: "an engine row has algo -1, not 0"
  if (!kind.algo_allowed(op, candidate.algorithm)) {
    return Error::invalid("its algo " + std::to_string(candidate.algorithm) + " is not " + kind.expected_algo(op));
  }
  if (candidate.math_type < 0 || candidate.math_type > max_math_type()) {
    return Error::invalid("its math type " + std::to_string(candidate.math_type) + " is not from 0 to " +
                 std::to_string(max_math_type()));
  }
  // NaN fails both comparisons: only a finite, non-negative time passes.
  if (!(m.time_ms >= 0 && m.time_ms <= kMaxTimeMs)) return Error::invalid("its GPU time is not from 0 to 1e9 ms");
  if (!(m.host_ms >= 0 && m.host_ms <= kMaxTimeMs)) return Error::invalid("its host time is not from 0 to 1e9 ms");
  // SQLite's integers are signed 64-bit: a larger size would be stored negative.
  if (m.workspace_bytes > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max())) {
    return Error::invalid("its workspace is beyond 2^63 bytes");
  }
  return Status::success();
}

}  // namespace ucudnn
