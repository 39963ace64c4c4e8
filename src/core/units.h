#pragma once
// Byte sizes as users write them: "67108864", "64MiB", "8 MiB", "1GiB", "512KiB", "64MB".

#include <cstddef>
#include <string>

#include "core/expected.h"

namespace ucudnn {

/// Parses a byte count with an optional unit (B, KiB, MiB, GiB, TiB; KB, MB, GB, TB as decimal;
/// K, M, G, T as binary). Case-insensitive; whitespace between number and unit allowed. A bare
/// number from 1 to 1 MiB - 1 is refused, as every size option refuses it (users of the original
/// μ-cuDNN passed `64` meaning MiB and silently got 64 bytes); a bare 0 is 0 bytes. A value that
/// does not fit in size_t is "out of range". Never throws.
Expected<std::size_t> parse_byte_size(const std::string& text);

/// Formats a byte count for people: "64 MiB", "41.2 MiB", "512 B".
std::string format_byte_size(std::size_t bytes);

/// A WD budget as users write it: parse_byte_size, and a budget of 0 bytes refused (it leaves
/// nothing to divide).
Expected<std::size_t> parse_total_workspace(const std::string& text);

}  // namespace ucudnn
