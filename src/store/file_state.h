#pragma once
// What is on disk before SQLite opens a file: the kind its header says, the files SQLite keeps
// beside it, and whether this process may write it.

#include <string>

#include "core/expected.h"

namespace ucudnn::store {

/// The folder of `path` ("." for a bare name).
std::string directory_of(const std::string& path);

/// Whether `path` exists (following links); *is_directory says whether it is a folder.
bool file_exists(const std::string& path, bool* is_directory);

/// Whether both paths name one existing file (by device and inode: links and other spellings
/// included).
bool same_file(const std::string& a, const std::string& b);

/// What the first 100 bytes of a file say.
enum class FileKind { kEmpty, kNotSqlite, kRollback, kWal };

/// Reads the header through SQLite's own file layer: a descriptor of our own, closed, would drop
/// the POSIX locks that other connections of this process hold on the file.
Expected<FileKind> file_kind(const std::string& path);

/// The files SQLite keeps beside a database while it is in use.
struct SideFiles {
  bool journal = false, wal = false, shm = false;
};
SideFiles side_files(const std::string& path);

/// A -wal or -shm that this process cannot write makes every write fail with "attempt to write a
/// readonly database"; this names the file instead (a read-only open of an older ucudnn left such
/// a -shm behind, with the database's read-only permissions).
Status side_files_writable(const std::string& path);

}  // namespace ucudnn::store
