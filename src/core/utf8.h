#pragma once
// Names read from files and the command line end up in JSON, which must be UTF-8: such names are
// checked where they are read, so that an error can say where they came from.

#include <string_view>

namespace ucudnn {

/// Whether `text` is well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, at most
/// U+10FFFF). The empty string is.
bool is_valid_utf8(std::string_view text);

}  // namespace ucudnn
