#pragma once
// Opening SQLite connections: read-write, read-only with locks, a lock-free look or an in-memory
// snapshot of a WAL file no process has open, and the rollback of a killed writer's hot journal.

#include <string>

#include "core/expected.h"
#include "store/file_state.h"
#include "store/sqlite.h"

namespace ucudnn::store {

/// kReadWriteExisting: as kReadWrite, but a file that no longer exists is not created.
enum class Access { kReadOnly, kImmutable, kReadWrite, kReadWriteExisting };

/// A connection to `path` (any characters: a percent-encoded URI), with the busy timeout and
/// extended result codes set. kReadWrite creates a missing file; kImmutable reads without locks
/// and ignores any -wal (only right for a file nobody writes).
Expected<SqliteConnection> connect(const std::string& path, Access access, int busy_timeout_ms);

/// Runs the first read of a connection: where SQLite recovers, or finds what it cannot open.
int first_read(sqlite3* db);

/// How a WAL file that no process has open (no -wal, no -shm) is read: its main file then holds
/// every committed row, and a connection with locks would create a -wal and a -shm beside it,
/// which a read-only connection cannot remove when it closes. kLookInPlace reads it lock-free in
/// place (a short look: a writer that starts meanwhile could change pages under a connection kept
/// open); kCopyToMemory copies it into memory, a consistent snapshot for a connection that is
/// kept; kWithLocks opens it normally.
enum class IdleWal { kWithLocks, kLookInPlace, kCopyToMemory };

/// A connection that only reads an existing file of `kind`, creating nothing beside it where it
/// can:
/// - a WAL file that no process has open is read as `idle` says (a snapshot whose file changed
///   during the copy, a writer having appeared, is read with locks instead);
/// - a WAL file in use (its -wal or -shm exists) is read with locks, through the -shm that is
///   there (SQLite creates the one that is missing);
/// - a hot journal left by a killed writer is rolled back, as SQLite does on a normal open,
///   through a read-write connection where `may_write`; where not, the error names the journal.
///   A file with a hot journal is never read as immutable: its pages are half written.
Expected<SqliteConnection> connect_for_reading(const std::string& path, FileKind kind, IdleWal idle, bool may_write,
                                               int busy_timeout_ms);

}  // namespace ucudnn::store
