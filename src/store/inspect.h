#pragma once
// Looking at a whole database: its statistics, and the integrity and schema checks of verify.

#include <string>

#include "core/expected.h"
#include "store/database_types.h"

struct sqlite3;

namespace ucudnn::store {

/// Rows, engine rows, kernels, GPUs and cuDNN versions of a file (all zero for one without
/// ucudnn's tables). Every list is read to its end or the whole answer fails.
Expected<DatabaseStats> read_stats(sqlite3* db);

/// Every stored value within kMaxStoredValueBytes (store/sqlite.h) and every op spelled as ucudnn
/// writes it, in one pass over each table that copies no value out of SQLite: what a reader that
/// walks a kernel's rows by the unique index (export, merge) must know first, as SQLite reads a
/// whole index entry to compare it. The error names the first problem.
Status stored_values_readable(sqlite3* db, int version);

/// PRAGMA integrity_check, then (where that passed) schema_problems for the file's version, then
/// row_problems (every row and bound as a lookup reads it); "" where nothing is wrong, else what
/// is, "; "-separated. `checked` receives the file's schema version and how many rows and bounds
/// were read.
Expected<std::string> verification_problems(sqlite3* db, Verification* checked);

}  // namespace ucudnn::store
