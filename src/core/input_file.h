#pragma once
// Whether a path can be read as an input file (a measurement table, a network file). Only regular
// files are: a directory opens and then fails to read, a FIFO without a writer blocks open()
// forever, and a device such as /dev/zero never ends.

#include <string>

#include "core/expected.h"

namespace ucudnn {

/// Success for a regular file (through symbolic links) or a path that does not exist (opening it
/// then says so); otherwise an error naming `what` and the path: "measurements file 'x' is a
/// directory", "... is a FIFO, not a regular file".
Status check_input_file(const std::string& path, const std::string& what);

/// What a file of mode `st_mode` is where it is not a regular file ("a directory", "a FIFO", "a
/// character device", ...); null for a regular file.
const char* irregular_file_kind(unsigned st_mode);

}  // namespace ucudnn
