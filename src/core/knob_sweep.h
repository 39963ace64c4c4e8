#pragma once
// Which configurations of a graph-API engine are candidates (UCUDNN_ENGINE_KNOBS). cuDNN's
// heuristics choose one value for each of an engine's knobs (split-K slices, tile sizes, stages,
// reduction mode, ...); other values can need less workspace or run faster within a limit. A sweep
// tries, besides the chosen configuration, those one knob away from it: each knob at a few of its
// other values, the others as chosen. Bounded per knob and per engine (each engine is swept once, from
// the first configuration the heuristics list of it), so a sweep costs at most kMaxSweptConfigs
// plan builds and timings per engine and micro-batch size beyond the heuristics' own.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/engine_config.h"
#include "core/expected.h"

namespace ucudnn {

/// kHeuristics: each engine at the knob values cuDNN's heuristics chose (the default). kRefine: as
/// kHeuristics, then, at each micro-batch size, the configurations one knob away from the fastest
/// engine configuration measured there within the limit (one engine's, kMaxSweptConfigs at most).
/// kSweep: every engine's configurations one knob away, and cuDNN's heuristic mode B beside A and
/// the fallback (the ceiling).
enum class KnobSearch { kHeuristics, kSweep, kRefine };

/// "heuristics", "refine" or "sweep", read as every setting's word is.
Expected<KnobSearch> parse_knob_search(const std::string& text);
const char* to_string(KnobSearch search);

/// One knob of an engine and the values it takes (cuDNN's CUDNN_ATTR_KNOB_INFO_*): from `min` to
/// `max` by `stride`.
struct KnobRange {
  int type = 0;
  std::int64_t min = 0;
  std::int64_t max = 0;
  std::int64_t stride = 1;
};

/// The most other values of one knob a sweep tries, and the most configurations of one engine.
inline constexpr std::size_t kSweptValuesPerKnob = 6;
inline constexpr std::size_t kMaxSweptConfigs = 24;

/// The configurations one knob away from `chosen`, in knob-type order: each knob of `ranges` at its
/// other values (every one where there are few, else some spread evenly over the range, both ends
/// included: kSweptValuesPerKnob, fewer where the engine has many knobs, which share
/// kMaxSweptConfigs, 2 at least), the other knobs as chosen; a knob `chosen` does not set is set.
/// At most kMaxSweptConfigs, none equal to `chosen`, none twice. Whether cuDNN can build each is
/// known only when its plan is finalized: one it refuses is skipped there.
std::vector<EngineConfigId> knob_variants(const EngineConfigId& chosen, const std::vector<KnobRange>& ranges);

}  // namespace ucudnn
