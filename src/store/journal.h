#pragma once
// The journal mode of a writable connection: the one asked for (kAuto: the file's own, see
// resolve_journal_mode), switched to, confirmed, with its synchronous level.

#include <string>

#include "core/expected.h"
#include "core/journal_mode.h"

struct sqlite3;

namespace ucudnn::store {

/// What kAuto means for a file: a file without ucudnn's tables yet (`new_file`) gets the mode its
/// file system suits (journal_mode_for below); an existing database keeps the mode it
/// is in, so that no command silently turns a shared rollback-journal database into WAL or back;
/// except a WAL file on a network file system, which goes back to delete (WAL is unsafe there).
/// Any other mode is itself.
Expected<JournalMode> resolve_journal_mode(sqlite3* db, JournalMode requested, bool new_file, const std::string& file);

/// One try at switching the connection to `mode` (not kAuto): "" once SQLite confirms the mode and
/// the synchronous level that goes with it is set (NORMAL for WAL, FULL otherwise); else why it
/// stays in its old mode. Leaving or entering WAL needs a moment when no other connection has the
/// file open, and SQLite keeps the old mode without an error while one has: the caller closes its
/// connection before trying again, or two processes trying at once would each keep the other from
/// ever switching. An error for any other failure.
Expected<std::string> try_journal_mode(sqlite3* db, JournalMode mode);

/// "delete", "wal", ...
const char* journal_mode_name(JournalMode mode);

/// The mode a path's file system suits, which kAuto gives a new file: kDelete on network file
/// systems (NFS, SMB/CIFS, Lustre, GPFS, CephFS, 9P, FUSE), kWal elsewhere.
JournalMode journal_mode_for(const std::string& path);

}  // namespace ucudnn::store
