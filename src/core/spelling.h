#pragma once
// The one way a word names an enum value, for every setting and option that takes a word
// (UCUDNN_SEARCH, --policy, UCUDNN_LOG_LEVEL, ...): case is ignored, and so are '-' and '_', so
// that powerOfTwo, power_of_two and POWER-OF-TWO agree. A setting lists its spellings once.

#include <cctype>
#include <optional>
#include <string>

#include "core/expected.h"

namespace ucudnn {

/// A word and the value it names; an alias (listed = false) is taken but not offered in errors.
template <typename E>
struct Spelling {
  const char* word;
  E value;
  bool listed = true;
};

/// `text` as spellings compare it: lower case, without '-' and '_'.
inline std::string spelling_key(const std::string& text) {
  std::string key;
  for (unsigned char c : text) {
    if (c != '-' && c != '_') key.push_back(static_cast<char>(std::tolower(c)));
  }
  return key;
}

/// The value `text` spells, if any of `spellings` (any range of Spelling<E>) matches.
template <typename E, typename Spellings>
std::optional<E> find_spelling(const std::string& text, const Spellings& spellings) {
  const std::string key = spelling_key(text);
  for (const Spelling<E>& s : spellings) {
    if (key == spelling_key(s.word)) return s.value;
  }
  return std::nullopt;
}

/// The word `value` is written as: its first listed spelling, or `fallback` where none names it.
template <typename E, typename Spellings>
const char* word_of(E value, const Spellings& spellings, const char* fallback) {
  for (const Spelling<E>& s : spellings) {
    if (s.listed && s.value == value) return s.word;
  }
  return fallback;
}

/// "a, b or c": the listed words, for messages.
template <typename E, typename Spellings>
std::string listed_words(const Spellings& spellings) {
  std::string words, last;
  for (const Spelling<E>& s : spellings) {
    if (!s.listed) continue;
    if (!last.empty()) words += (words.empty() ? "" : ", ") + last;
    last = s.word;
  }
  return words.empty() ? last : words + " or " + last;
}

/// The value `text` spells, or "unknown WHAT 'text' (expected a, b or c)".
template <typename E, typename Spellings>
Expected<E> parse_spelling(const std::string& text, const Spellings& spellings, const std::string& what) {
  if (const std::optional<E> value = find_spelling<E>(text, spellings)) return *value;
  return Error{ErrorCode::kBadParam,
               "unknown " + what + " '" + text + "' (expected " + listed_words<E>(spellings) + ")"};
}

}  // namespace ucudnn
