#pragma once
// Whether a shared library exports a symbol, read from its ELF dynamic symbol table without
// loading it (loading would run its constructors and need its dependencies): how `ucudnn run`
// knows that the file it is asked to preload is ucudnn's preload layer.

#include <string>

#include "core/expected.h"

namespace ucudnn::tools {

/// Whether the ELF shared library `file`, built for this machine (64-bit, this byte order and
/// architecture), defines the dynamic symbol `name`. An error, saying what the file is instead,
/// where it is not such a library or cannot be read. Every offset and size read from the file is
/// checked against it before use.
Expected<bool> exports_symbol(const std::string& file, const std::string& name);

}  // namespace ucudnn::tools
