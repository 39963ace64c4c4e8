#include "store/journal.h"

#include <sqlite3.h>
#include <sys/statfs.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <thread>

#include "store/database.h"
#include "store/file_state.h"
#include "store/lock_wait.h"
#include "store/sqlite.h"

namespace ucudnn::store {
namespace {

constexpr const char* kJournalNames[] = {"auto", "wal", "delete", "truncate", "persist"};

const char* journal_name(JournalMode mode) { return kJournalNames[static_cast<int>(mode)]; }

// The journal mode SQLite reports for the connection, or an error.
Expected<std::string> current_journal_mode(sqlite3* db, const std::string& pragma) {
  UCUDNN_TRY_ASSIGN(Statement statement, Statement::prepare(db, pragma));
  const int rc = statement.step();
  if (rc != SQLITE_ROW) return Error{statement.error(rc)};
  return statement.column_text(0);
  // the statement is finalised here: an unfinished one would hold a lock on the file
}

Status switch_journal_mode(sqlite3* db, JournalMode wanted, int busy_timeout_ms) {
  const std::string name = journal_name(wanted);
  const auto deadline = lock_wait_end(busy_timeout_ms);
  std::mt19937 rng(std::random_device{}());
  int backoff_ms = 2;
  std::string last;
  while (true) {
    auto switched = current_journal_mode(db, "PRAGMA journal_mode=" + name);
    if (switched && *switched == name) {
      UCUDNN_TRY_ASSIGN(const std::string actual, current_journal_mode(db, "PRAGMA journal_mode"));
      if (actual == name) return Status::success();
      last = "it reports '" + actual + "'";
    } else if (switched) {
      last = "it stays in '" + *switched + "' mode while other connections have it open";
    } else if (sqlite_busy(sqlite3_extended_errcode(db))) {
      const auto actual = current_journal_mode(db, "PRAGMA journal_mode");
      last = "it stays in '" + (actual ? *actual : std::string("its old")) +
             "' mode while other connections have it open";
    } else {
      return Error{"cannot set journal mode '" + name + "': " + switched.message()};
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return Error{"cannot set journal mode '" + name + "' (UCUDNN_DATABASE_JOURNAL): " + last +
                   "; close them, or use the mode the others use"};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(1, backoff_ms)(rng)));
    backoff_ms = std::min(backoff_ms * 2, 200);
  }
}

}  // namespace

Status apply_journal_mode(sqlite3* db, JournalMode mode, int busy_timeout_ms) {
  UCUDNN_TRY(switch_journal_mode(db, mode, busy_timeout_ms));
  return sqlite_exec(db, mode == JournalMode::kWal ? "PRAGMA synchronous=NORMAL" : "PRAGMA synchronous=FULL");
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
    default:
      return JournalMode::kWal;
  }
}

}  // namespace ucudnn::store
