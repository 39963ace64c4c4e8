#include "store/journal.h"

#include <sqlite3.h>
#include <sys/statfs.h>

#include <string>

#include "store/file_state.h"
#include "store/sqlite.h"

namespace ucudnn::store {
namespace {

constexpr const char* kJournalNames[] = {"auto", "wal", "delete", "truncate", "persist"};

// The journal mode SQLite reports for the connection, or an error.
Expected<std::string> current_journal_mode(sqlite3* db, const std::string& pragma) {
  UCUDNN_TRY_ASSIGN(Statement statement, Statement::prepare(db, pragma));
  const int rc = statement.step();
  if (rc != SQLITE_ROW) return Error{ErrorCode::kStorage, statement.error(rc)};
  return statement.column_text(0);
  // the statement is finalised here: an unfinished one would hold a lock on the file
}

}  // namespace

const char* journal_mode_name(JournalMode mode) { return kJournalNames[static_cast<int>(mode)]; }

Expected<JournalMode> resolve_journal_mode(sqlite3* db, JournalMode requested, bool new_file, const std::string& file) {
  if (requested != JournalMode::kAuto) return requested;
  const JournalMode suited = journal_mode_for(file);
  if (new_file) return suited;
  // A file's header says WAL or not; delete, truncate and persist are a connection's own choice.
  UCUDNN_TRY_ASSIGN(const std::string current, current_journal_mode(db, "PRAGMA journal_mode"));
  if (current == "wal") return suited == JournalMode::kWal ? JournalMode::kWal : JournalMode::kDelete;
  return JournalMode::kDelete;
}

Expected<std::string> try_journal_mode(sqlite3* db, JournalMode mode) {
  const std::string name = journal_mode_name(mode);
  auto switched = current_journal_mode(db, "PRAGMA journal_mode=" + name);
  if (!switched && !sqlite_busy(sqlite3_extended_errcode(db))) {
    return Error{ErrorCode::kStorage, "cannot set journal mode '" + name + "': " + switched.message()};
  }
  UCUDNN_TRY_ASSIGN(const std::string actual, current_journal_mode(db, "PRAGMA journal_mode"));
  if (actual != name) return "it stays in '" + actual + "' mode while other connections have it open";
  UCUDNN_TRY(sqlite_exec(db, mode == JournalMode::kWal ? "PRAGMA synchronous=NORMAL" : "PRAGMA synchronous=FULL"));
  return std::string();
}

JournalMode journal_mode_for(const std::string& path) {
  struct statfs fs {};
  if (::statfs(store::directory_of(path).c_str(), &fs) != 0) return JournalMode::kDelete;  // unknown: the safe choice
  switch (static_cast<unsigned long>(fs.f_type)) {
    case 0x6969UL:      // NFS
    case 0xFF534D42UL:  // CIFS
    case 0xFE534D42UL:  // SMB2
    case 0x517BUL:      // SMB
    case 0x0BD00BD0UL:  // Lustre
    case 0x47504653UL:  // GPFS
    case 0x00C36400UL:  // CephFS
    case 0x01021997UL:  // 9P
    case 0x65735546UL:  // FUSE (sshfs, many cluster file systems)
    case 0x013111A8UL:  // IBRIX
    case 0x5346414FUL:  // AFS
      return JournalMode::kDelete;
    default: return JournalMode::kWal;
  }
}

}  // namespace ucudnn::store
