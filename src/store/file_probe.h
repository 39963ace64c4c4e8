#pragma once
// The look at an existing file before anything is written to it: a file that is not SQLite, is
// corrupt, is another program's database or comes from a newer ucudnn is refused untouched.

#include <string>

#include "core/expected.h"

namespace ucudnn::store {

/// Looks at the file at `path` without writing to it or creating anything beside it (the one
/// write: a killed writer's hot journal is rolled back where `may_write`); the error, prefixed
/// "refused and left untouched: ", says what the file is.
Status probe_existing(const std::string& path, bool may_write, int busy_timeout_ms);

}  // namespace ucudnn::store
