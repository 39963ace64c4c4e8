#pragma once
// How new convolutions are benchmarked (UCUDNN_SEARCH, ucudnnSetSearchMode). The fast search
// (runtime/search_plan.h) measures only where a measurement can change the plan; the exhaustive
// one times every candidate fully at every micro-batch size of the policy, so that the fast
// search's plans can be compared with it.

#include <string>

#include "core/expected.h"

namespace ucudnn {

enum class SearchMode { kFast, kExhaustive };

/// "fast" or "exhaustive" (case-insensitive).
Expected<SearchMode> parse_search_mode(const std::string& text);
const char* to_string(SearchMode mode);

}  // namespace ucudnn
