#pragma once
// The libraries the `ucudnn` command finds beside its own file: the preload library (`run`) and
// the bench module (`bench`), installed in <prefix>/lib beside <prefix>/bin/ucudnn, or built in
// the command's own folder.

#include <string>

#include "core/expected.h"

namespace ucudnn::tools {

/// Whether `path` is a regular file (links followed).
bool is_file(const std::string& path);

/// This process's executable file (/proc/self/exe), "" where it cannot be read.
std::string this_executable();

/// `name` beside `executable`: <its folder>/../lib/NAME as installed, then <its folder>/NAME as
/// built; the first that is a file. An error naming both places where neither is.
Expected<std::string> library_beside(const std::string& name, const std::string& executable);

}  // namespace ucudnn::tools
