#pragma once
// Whether a path can be read as an input file (a measurement table, a network file). Only regular
// files are: a directory opens and then fails to read, a FIFO without a writer blocks open()
// forever, and a device such as /dev/zero never ends. And what a file's first bytes say it is,
// so that a database or an archive given for a table is named as such, not refused for its first
// odd byte as if it were a damaged table.

#include <cstddef>
#include <string>
#include <string_view>

#include "core/expected.h"

namespace ucudnn {

/// Success for a regular file (through symbolic links) or a path that does not exist (opening it
/// then says so); otherwise an error naming `what` and the path: "measurements file 'x' is a
/// directory", "... is a FIFO, not a regular file".
Status check_input_file(const std::string& path, const std::string& what);

/// What a file of mode `st_mode` is where it is not a regular file ("a directory", "a FIFO", "a
/// character device", ...); null for a regular file.
const char* irregular_file_kind(unsigned st_mode);

/// What binary_content_kind calls a file that starts with SQLite's header.
inline constexpr char kSqliteDatabaseKind[] = "an SQLite database";

/// How many bytes of a file binary_content_kind looks at.
inline constexpr std::size_t kContentHeadBytes = 4096;

/// What `head` (a file's first bytes, up to kContentHeadBytes) says the file is where it is not
/// text: "an SQLite database" (its header, "SQLite format 3"), "gzip-compressed data", "a zip
/// archive (an .xlsx workbook is one)", "an ELF executable", "UTF-16 text", ... by their signatures,
/// else "binary data" where more than one byte in eight is a control byte (other than tab, CR, LF
/// and form feed) or no part of a UTF-8 character. Empty for text (a stray NUL or a name in
/// Latin-1 is left to the reader, which names its line).
std::string binary_content_kind(std::string_view head);

/// binary_content_kind of the file at `path` (a regular file: check_input_file first); empty for
/// text, an empty file or one that cannot be read (opening it then says why).
std::string binary_file_kind(const std::string& path);

}  // namespace ucudnn
