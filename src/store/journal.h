#pragma once
// The journal mode of a writable connection: the one asked for (kAuto: chosen by file system, see
// journal_mode_for in store/database.h), switched to, confirmed, with its synchronous level.

#include "core/expected.h"
#include "core/journal_mode.h"

struct sqlite3;

namespace ucudnn::store {

/// Switches the connection to `mode` (not kAuto) and confirms that SQLite uses it, then sets the
/// synchronous level that goes with it (NORMAL for WAL, FULL otherwise). Leaving or entering WAL
/// needs a moment of exclusive access: while other connections have the file open the switch
/// fails (and SQLite keeps the old mode without an error), so it is retried with backoff until
/// the busy timeout, then reported; a database never silently stays in another mode than the one
/// asked for.
Status apply_journal_mode(sqlite3* db, JournalMode mode, int busy_timeout_ms);

}  // namespace ucudnn::store
