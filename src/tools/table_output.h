#pragma once
// Writes a table the user named (`db export --output`, `bench --measurements`).

#include <string>

#include "core/expected.h"

namespace ucudnn::tools {

/// Writes `text` to `output`: a stream where it stands (appended), otherwise a new file, whole or
/// not at all. An existing file is never overwritten: the new file is written beside it under a
/// temporary name and linked into place, which fails if the name exists (errors name `option`).
Status write_new_table(const std::string& option, const std::string& output, const std::string& text);

}  // namespace ucudnn::tools
