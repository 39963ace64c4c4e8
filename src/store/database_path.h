#pragma once
// The file a database path names, before SQLite opens it: its real path (absolute, links
// resolved: SQLite keeps its journal, -wal and -shm beside the real file, and the store opens that
// path refusing any link, so that a link planted after this look is never followed), a link that
// points nowhere refused rather than followed, anything but a regular file refused, a new file
// created with the user's umask, and why this process may not write it.

#include <string>

#include "core/expected.h"

namespace ucudnn::store {

struct DatabaseFile {
  std::string path;     ///< the real file: absolute, links resolved (as given where its folder is missing)
  bool exists = false;  ///< false only for a path that names nothing, link or file
};

/// Resolves `path`. Refused, naming it: a directory, a FIFO, a device or a socket (a database is a
/// regular file: a FIFO would block open(), /dev/null reads as an empty database), and a symbolic
/// link whose target does not exist: creating the database there would put it wherever whoever
/// made the link chose (in a shared sticky folder, another user); and a real file named as SQLite
/// names side files ("x.db-journal", "-wal", "-shm", "-mj" + 8 or 9 hex digits), which the next open of
/// "x.db" would delete or overwrite as its own.
Expected<DatabaseFile> resolve_database_file(const std::string& path);

/// Creates `file` empty where nothing exists yet, with mode 0666 less the umask (SQLite would
/// create it 0644 whatever the umask, so a group sharing a folder could not write it; SQLite gives
/// its journal, -wal and -shm the database's own mode). Returns the file resolved again: if a link
/// or file appeared meanwhile, it is what the path names now.
Expected<DatabaseFile> create_database_file(const DatabaseFile& file);

/// Empty where this process may write the file (or create it, where it does not exist) and its
/// folder (SQLite keeps its journal there); otherwise why not, naming the file or folder, its mode
/// and owner: "this user (bob, uid 1001) may not write the folder '/shared' (mode 0755, owner
/// alice:staff), where SQLite keeps the database's journal".
std::string why_not_writable(const std::string& path, bool exists);

}  // namespace ucudnn::store
