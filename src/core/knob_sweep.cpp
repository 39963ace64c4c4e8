#include "core/knob_sweep.h"

#include <algorithm>

#include "core/spelling.h"

namespace ucudnn {
namespace {

const Spelling<KnobSearch> kKnobSearches[] = {
    {"heuristics", KnobSearch::kHeuristics}, {"refine", KnobSearch::kRefine}, {"sweep", KnobSearch::kSweep}};

// The values of `range` a sweep tries: all, or `wanted` (2 or more) spread over it, both ends
// included. Ranges come from cuDNN and may be as wide as an int64: counted without overflow.
std::vector<std::int64_t> swept_values(const KnobRange& range, std::uint64_t wanted) {
  std::vector<std::int64_t> values;
  if (range.max < range.min) return values;
  const std::uint64_t stride = range.stride > 0 ? static_cast<std::uint64_t>(range.stride) : 1;
  const std::uint64_t steps = (static_cast<std::uint64_t>(range.max) - static_cast<std::uint64_t>(range.min)) / stride;
  for (std::uint64_t i = 0; i <= std::min(steps, wanted - 1); ++i) {
    // steps + 1 values in all; where there are more than wanted, i / (wanted - 1) of the way, in
    // integers (steps * i could overflow): the last is the range's end exactly.
    const std::uint64_t parts = wanted - 1;
    const std::uint64_t step = steps < wanted ? i : steps / parts * i + steps % parts * i / parts;
    values.push_back(static_cast<std::int64_t>(static_cast<std::uint64_t>(range.min) + step * stride));
  }
  return values;
}

}  // namespace

Expected<KnobSearch> parse_knob_search(const std::string& text) {
  return parse_spelling<KnobSearch>(text, kKnobSearches, "engine knob search");
}

const char* to_string(KnobSearch search) {
  switch (search) {
    case KnobSearch::kSweep: return "sweep";
    case KnobSearch::kRefine: return "refine";
    case KnobSearch::kHeuristics: break;
  }
  return "heuristics";
}

std::vector<EngineConfigId> knob_variants(const EngineConfigId& chosen, const std::vector<KnobRange>& ranges) {
  std::vector<KnobRange> sorted;
  for (const KnobRange& range : ranges) {
    if (range.max > range.min) sorted.push_back(range);  // a knob of one value has no other
  }
  std::sort(sorted.begin(), sorted.end(), [](const KnobRange& a, const KnobRange& b) { return a.type < b.type; });
  // The bound spread over the knobs, so that an engine of many knobs has each swept at its ends at
  // least, rather than its first four knobs at six values and the rest never.
  const std::size_t per_knob =
      std::clamp<std::size_t>(kMaxSweptConfigs / std::max<std::size_t>(sorted.size(), 1), 2, kSweptValuesPerKnob);
  std::vector<EngineConfigId> variants;
  for (const KnobRange& range : sorted) {
    for (std::int64_t value : swept_values(range, per_knob)) {
      if (variants.size() == kMaxSweptConfigs) return variants;
      EngineConfigId variant = chosen;
      auto knob = std::find_if(variant.knobs.begin(), variant.knobs.end(),
                               [&](const auto& choice) { return choice.first == range.type; });
      if (knob == variant.knobs.end()) {
        variant.knobs.emplace_back(range.type, value);
        std::sort(variant.knobs.begin(), variant.knobs.end());
      } else {
        knob->second = value;
      }
      if (variant == chosen || std::find(variants.begin(), variants.end(), variant) != variants.end()) continue;
      variants.push_back(std::move(variant));
    }
  }
  return variants;
}

}  // namespace ucudnn
