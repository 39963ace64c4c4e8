#include "core/utf8.h"

#include <cstddef>

namespace ucudnn {
namespace {

bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// The length of the sequence that `lead` starts, and the range its second byte must lie in
// (which rules out overlong forms, surrogates and code points above U+10FFFF); 0 if none.
struct Sequence {
  std::size_t length = 0;
  unsigned char second_min = 0x80;
  unsigned char second_max = 0xBF;
};

Sequence sequence_of(unsigned char lead) {
  if (lead <= 0x7F) return {1};
  if (lead >= 0xC2 && lead <= 0xDF) return {2};
  if (lead == 0xE0) return {3, 0xA0, 0xBF};
  if (lead == 0xED) return {3, 0x80, 0x9F};
  if (lead >= 0xE1 && lead <= 0xEF) return {3};
  if (lead == 0xF0) return {4, 0x90, 0xBF};
  if (lead >= 0xF1 && lead <= 0xF3) return {4};
  if (lead == 0xF4) return {4, 0x80, 0x8F};
  return {0};
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const Sequence sequence = sequence_of(static_cast<unsigned char>(text[i]));
    if (sequence.length == 0 || text.size() - i < sequence.length) return false;
    if (sequence.length > 1) {
      const auto second = static_cast<unsigned char>(text[i + 1]);
      if (second < sequence.second_min || second > sequence.second_max) return false;
      for (std::size_t k = 2; k < sequence.length; ++k) {
        if (!is_continuation(static_cast<unsigned char>(text[i + k]))) return false;
      }
    }
    i += sequence.length;
  }
  return true;
}

}  // namespace ucudnn
