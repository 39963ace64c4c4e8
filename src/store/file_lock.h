#pragma once
// Open-file-description (OFD) locks, the one way the store and the tools mark a file as in use by a
// running process: the lock belongs to the open file description, so other descriptors of the
// same process neither drop it (as closing one drops POSIX locks, SQLite's included) nor share
// it, and the kernel drops it when its holder dies, however it dies. What the claims of a job
// (store/measurement_claims.h) and a new database's temporary file (tools/new_database.h) hold.

#include <sys/types.h>

#include <string>

namespace ucudnn::store {

/// Takes a write lock on the first `length` bytes (0: the whole file) of the file open as `fd`,
/// without waiting; false, errno set, where another holds it (EAGAIN, EACCES) or it cannot be had.
bool lock_open_file(int fd, off_t length);

/// Whether a write lock on those bytes of the file open as `fd` is held through another open file
/// description (another process, or another descriptor of this one).
bool locked_elsewhere(int fd, off_t length);

/// Whether `path` names the file open as `fd` now: a file locked after it was opened may have been
/// unlinked, or replaced at that name, meanwhile.
bool names_open_file(const std::string& path, int fd);

}  // namespace ucudnn::store
