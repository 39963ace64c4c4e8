#pragma once
// The engine configurations of cuDNN's graph API, one kind of candidate (the kinds themselves,
// and which a handle plans with, are core/candidate_kinds.h).
//
// An engine configuration is persisted by its id, "eng<global index>" followed by its knob
// choices in ascending knob type, ":k<type>=<value>,k<type>=<value>" (e.g. "eng12:k3=1,k17=0").
// Global indices and knob types are cuDNN's stable enum values, never list positions.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/conv_key.h"
#include "core/expected.h"

namespace ucudnn {

/// An engine configuration: cuDNN's global engine index and its knob choices (type, value),
/// ascending by type.
struct EngineConfigId {
  std::int64_t engine = 0;
  std::vector<std::pair<int, std::int64_t>> knobs;

  friend bool operator==(const EngineConfigId& a, const EngineConfigId& b) {
    return a.engine == b.engine && a.knobs == b.knobs;
  }
};

/// The longest engine configuration id, in bytes, and the most knobs one may choose: cuDNN 9.19 has
/// 44 knob types, and a choice of every one with 64-bit values fits in some 1.5 KiB. An id beyond
/// either is refused before it is parsed further (a database row may hold any text).
inline constexpr std::size_t kMaxEngineIdBytes = 4096;
inline constexpr std::size_t kMaxEngineKnobs = 64;

/// The canonical id (knobs sorted by type).
std::string format_engine_config(EngineConfigId config);
/// Parses an id strictly; the error names what is wrong (an id longer than kMaxEngineIdBytes or
/// with more than kMaxEngineKnobs knobs included). format(parse(s)) == s for canonical ids.
Expected<EngineConfigId> parse_engine_config(const std::string& text);

/// Whether cuDNN is known to fail on this engine for this convolution in a way that would harm
/// the process, so that it is never offered. Known: global engine 73 (an sm90 strided dgrad
/// kernel) executes an illegal instruction, which kills the CUDA context, on 3-D backward data
/// with a stride and a dilation above 1 (FP16 and BF16, any channel count; cuDNN 9.14 on an
/// H100, reproduced with compute-sanitizer). Kept for every version until one is shown fixed.
bool known_defective_engine(const ConvKey& key, std::int64_t engine);

}  // namespace ucudnn
