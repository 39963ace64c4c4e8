#include "store/connect.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "store/lock_wait.h"

namespace ucudnn::store {
namespace {

bool same_file_state(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size &&
         a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

// A WAL file that no process has open, copied into memory through an immutable (lock-free)
// connection: a consistent snapshot, where an immutable connection kept open would mix the pages
// it cached with pages that a later writer checkpoints into the file. Null when the file changed
// during the copy or a writer appeared: then it is no longer idle, and is read with locks.
Expected<SqliteConnection> snapshot_in_memory(const std::string& path, int busy_timeout_ms) {
  struct stat before {}, after {};
  if (::stat(path.c_str(), &before) != 0)
    return Error{ErrorCode::kStorage, "cannot read it (" + std::string(std::strerror(errno)) + ")"};
  UCUDNN_TRY_ASSIGN(const SqliteConnection file, connect(path, Access::kImmutable, busy_timeout_ms));
  sqlite3* raw = nullptr;
  const int opened = sqlite3_open_v2(":memory:", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, nullptr);
  SqliteConnection memory(raw);
  if (opened != SQLITE_OK)
    return Error{ErrorCode::kStorage, "cannot make a snapshot in memory: " + sqlite_error(raw, opened)};
  sqlite3_backup* backup = sqlite3_backup_init(memory.get(), "main", file.get(), "main");
  if (!backup)
    return Error{ErrorCode::kStorage, "cannot read it: " + sqlite_error(memory.get(), sqlite3_errcode(memory.get()))};
  const int copied = sqlite3_backup_step(backup, -1);
  sqlite3_backup_finish(backup);
  const SideFiles side = side_files(path);
  const bool unchanged = ::stat(path.c_str(), &after) == 0 && same_file_state(before, after) && !side.wal &&
                         !side.shm && !side.journal;
  if (!unchanged) return SqliteConnection();
  if (copied != SQLITE_DONE) return Error{ErrorCode::kStorage, "cannot read it: " + sqlite_error(file.get(), copied)};
  bound_stored_values(memory.get());
  wait_for_locks(memory.get(), busy_timeout_ms);
  sqlite3_extended_result_codes(memory.get(), 1);
  return memory;
}

}  // namespace

Expected<SqliteConnection> connect(const std::string& path, Access access, int busy_timeout_ms) {
  const char* query = access == Access::kImmutable  ? "mode=ro&immutable=1"
                      : access == Access::kReadOnly ? "mode=ro"
                                                    : "";
  const int access_flags = access == Access::kReadWrite           ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                           : access == Access::kReadWriteExisting ? SQLITE_OPEN_READWRITE
                                                                  : SQLITE_OPEN_READONLY;
  // No link is followed: the store opens the real file's path (store/database_path.h), and a link
  // planted there since is refused rather than followed.
  const int flags = SQLITE_OPEN_URI | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW | access_flags;
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(sqlite_uri(path, query).c_str(), &raw, flags, nullptr);
  SqliteConnection connection(raw);  // closed on failure too
  if (rc != SQLITE_OK) return Error{ErrorCode::kStorage, "cannot open: " + sqlite_error(raw, rc)};
  bound_stored_values(raw);
  wait_for_locks(raw, busy_timeout_ms);
  sqlite3_extended_result_codes(raw, 1);
  return connection;
}

int first_read(sqlite3* db) {
  return sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
}

Expected<SqliteConnection> connect_for_reading(const std::string& path, FileKind kind, IdleWal idle, bool may_write,
                                               int busy_timeout_ms) {
  const SideFiles side = side_files(path);
  if (kind == FileKind::kWal && !side.wal && !side.shm) {
    if (idle == IdleWal::kLookInPlace) return connect(path, Access::kImmutable, busy_timeout_ms);
    if (idle == IdleWal::kCopyToMemory) {
      UCUDNN_TRY_ASSIGN(SqliteConnection snapshot, snapshot_in_memory(path, busy_timeout_ms));
      if (snapshot) return snapshot;  // else a writer appeared: read with locks, as below
    }
  }
  UCUDNN_TRY_ASSIGN(SqliteConnection connection, connect(path, Access::kReadOnly, busy_timeout_ms));
  const int rc = first_read(connection.get());
  // The connection's busy timeout has been waited out: a further read would wait all over again.
  if (sqlite_busy(rc)) return still_locked_error(busy_timeout_ms);
  if (rc == SQLITE_READONLY_ROLLBACK) {
    if (!may_write) {
      return Error{ErrorCode::kStorage,
                   "'" + path +
                       "-journal' holds a write that was interrupted and must be rolled back first, "
                       "which needs permission to write the database: open it once as a user who may write it"};
    }
    UCUDNN_TRY_ASSIGN(SqliteConnection writer, connect(path, Access::kReadWrite, busy_timeout_ms));
    const int recovered = first_read(writer.get());
    if (recovered != SQLITE_OK && !sqlite_corrupt(recovered)) {
      return Error{ErrorCode::kStorage, "cannot roll back the interrupted write in '" + path +
                                            "-journal': " + sqlite_error(writer.get(), recovered)};
    }
    return writer;  // damage shows in the checks that follow
  }
  const int primary = rc & 0xff;
  if (kind == FileKind::kWal && (primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY)) {
    return Error{ErrorCode::kStorage,
                 "it is in WAL mode, and its '" + path + "-shm' file cannot be created or used by this process (" +
                     sqlite_error(connection.get(), rc) + "); open it once as a user who may write its directory"};
  }
  return connection;  // other failures show in the schema checks that follow
}

}  // namespace ucudnn::store
