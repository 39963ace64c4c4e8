#include "core/search_mode.h"

#include <cctype>

namespace ucudnn {

Expected<SearchMode> parse_search_mode(const std::string& text) {
  std::string key;
  for (unsigned char c : text) key.push_back(static_cast<char>(std::tolower(c)));
  if (key == "fast") return SearchMode::kFast;
  if (key == "exhaustive") return SearchMode::kExhaustive;
  return Error{"unknown search mode '" + text + "' (expected fast or exhaustive)"};
}

const char* to_string(SearchMode mode) { return mode == SearchMode::kFast ? "fast" : "exhaustive"; }

}  // namespace ucudnn
