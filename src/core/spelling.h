#pragma once
// The one way a word names an enum value, for every setting and option that takes a word
// (UCUDNN_SEARCH, --policy, UCUDNN_LOG_LEVEL, ...): case is ignored, and so are '-' and '_' between
// letters, so that powerOfTwo, power_of_two and POWER-OF-TWO agree. A setting lists its spellings once.

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

/// `text` as spellings compare it: lower case, without the '-' and '_' that join two letters.
/// Elsewhere they stay: "-1" is a negative number and "_2" no word, never the 1 or 2 they would
/// leave behind.
inline std::string spelling_key(const std::string& text) {
  const auto letter_at = [&](std::size_t i) {
    return i < text.size() && std::isalpha(static_cast<unsigned char>(text[i])) != 0;
  };
  std::string key;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t run_end = text.find_first_not_of("-_", i);
    if (run_end != i) {  // a run of '-' and '_': dropped where it joins two letters
      const std::size_t end = run_end == std::string::npos ? text.size() : run_end;
      if (!(i > 0 && letter_at(i - 1) && letter_at(end))) key.append(text, i, end - i);
      i = end;
      continue;
    }
    key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(text[i++]))));
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
