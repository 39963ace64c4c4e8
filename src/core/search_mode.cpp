#include "core/search_mode.h"

#include "core/spelling.h"

namespace ucudnn {

namespace {
const Spelling<SearchMode> kSearchModes[] = {{"fast", SearchMode::kFast}, {"exhaustive", SearchMode::kExhaustive}};
}  // namespace

Expected<SearchMode> parse_search_mode(const std::string& text) {
  return parse_spelling<SearchMode>(text, kSearchModes, "search mode");
}

const char* to_string(SearchMode mode) { return word_of(mode, kSearchModes, "unknown"); }

}  // namespace ucudnn
