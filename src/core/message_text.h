#pragma once
// What an error message quotes of a bad value: enough to recognise it, never the whole of it. A
// one-line error must stay one readable line when the offending field is megabytes long.

#include <cstddef>
#include <string>
#include <string_view>

namespace ucudnn {

/// `text` whole if it has at most `limit` bytes; otherwise its first bytes (cut at a UTF-8
/// character boundary) and "... (N bytes)".
std::string excerpt(std::string_view text, std::size_t limit = 64);

}  // namespace ucudnn
