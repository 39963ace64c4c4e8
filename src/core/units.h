#pragma once
// Byte sizes as users write them: "67108864", "64MiB", "64M", "8 MiB", "1GiB", "512KiB".

#include <cstddef>
#include <string>

#include "core/expected.h"

namespace ucudnn {

/// The smallest size given in bare bytes that is taken (0 aside): below it, a user meant MiB.
inline constexpr std::size_t kSmallestBareSize = std::size_t{1} << 20;

/// How sizes are written, in one phrase, for help texts.
inline constexpr const char* kByteSizeUnits = "binary units: 64MiB or 64M = 67108864 bytes; MB is refused as ambiguous";

/// Parses a byte count with an optional binary unit: B, KiB, MiB, GiB, TiB, or K, M, G, T meaning
/// the same. Case-insensitive; whitespace between number and unit allowed; a fraction must make
/// whole bytes ("1.5KiB"). KB, MB, GB and TB are refused as ambiguous (frameworks write MB for
/// MiB, SI means 10^6), the message naming the binary spelling and its bytes. A bare number from
/// 1 to 1 MiB - 1 is refused, as every size option refuses it (users of the original μ-cuDNN
/// passed `64` meaning MiB and silently got 64 bytes); a bare 0 is 0 bytes. A value that does not
/// fit in size_t is "out of range". Serves the command line and the UCUDNN_* variables alike.
/// Never throws.
Expected<std::size_t> parse_byte_size(const std::string& text);

/// Formats a byte count for people: "64 MiB", "41.2 MiB", "512 B".
std::string format_byte_size(std::size_t bytes);

/// A WD budget as users write it: parse_byte_size, and a budget of 0 bytes refused (it leaves
/// nothing to divide).
Expected<std::size_t> parse_total_workspace(const std::string& text);

/// How long workspace division's integer program may search by default. Ordinary networks solve
/// in milliseconds (5,000 kernels in under two seconds); hostile tables (terabyte workspaces, odd
/// budgets) would search for hours.
inline constexpr double kDefaultWdTimeLimitSeconds = 10.0;

/// A time limit in seconds as users write it: a plain decimal number ("10", "0.5"), optionally
/// followed by "s", from 0.001 to 86400. Never throws.
Expected<double> parse_time_limit_seconds(const std::string& text);

}  // namespace ucudnn
