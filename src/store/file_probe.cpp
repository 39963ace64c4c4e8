#include "store/file_probe.h"

#include <sqlite3.h>

#include "store/connect.h"
#include "store/database_types.h"
#include "store/file_state.h"
#include "store/schema.h"
#include "store/sqlite.h"

namespace ucudnn::store {

Status probe_existing(const std::string& path, bool may_write, int busy_timeout_ms) {
  const std::string refused = "refused and left untouched: ";
  UCUDNN_TRY_ASSIGN(const FileKind kind, file_kind(path));
  if (kind == FileKind::kNotSqlite) return Error{ErrorCode::kBadParam, refused + "it is not an SQLite database"};
  auto probe_once = [&](IdleWal idle) -> Status {
    UCUDNN_TRY_ASSIGN(const SqliteConnection probe, connect_for_reading(path, kind, idle, may_write, busy_timeout_ms));
    auto version = read_schema_version(probe.get());
    if (!version) return version.error().prefixed(refused);
    // Damage past the first page shows only when every page is read.
    auto check = Statement::prepare(probe.get(), "PRAGMA quick_check(1)");
    if (!check) return check.error().prefixed(refused);
    const int rc = check.value().step();
    if (rc != SQLITE_ROW || check.value().column_text(0) != "ok") {
      const std::string detail = rc == SQLITE_ROW ? check.value().column_text(0) : check.value().error(rc);
      return Error{ErrorCode::kStorage, refused + "the file is corrupt (" + detail + ")"};
    }
    if (*version > kSchemaVersion) {
      return Error{ErrorCode::kBadParam, refused + "its schema version " + std::to_string(*version) +
                                             " is newer than this ucudnn's " + std::to_string(kSchemaVersion) +
                                             "; use a newer ucudnn"};
    }
    return Status::success();
  };
  Status probed = probe_once(IdleWal::kLookInPlace);
  // An immutable look races with a writer that starts meanwhile: if one did, look again with locks.
  if (!probed && kind == FileKind::kWal) {
    const SideFiles now = side_files(path);
    if (now.wal || now.shm) probed = probe_once(IdleWal::kWithLocks);
  }
  return probed;
}

}  // namespace ucudnn::store
