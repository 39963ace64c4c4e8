#pragma once
// The schema: its CREATE statements (made from store/columns.h), the version row, the upgrades of
// older files (1 to 2 to 3) and the checks that a file has every table, index and key column.

#include <string>

#include "core/expected.h"
#include "store/database_types.h"

struct sqlite3;

namespace ucudnn::store {

/// The schema version stored in `meta`, 0 for a file without ucudnn's tables; an error for an
/// SQLite file that holds other tables, for a damaged file, or for a file that is not SQLite.
Expected<int> read_schema_version(sqlite3* db);

/// The version of a file being read: 0 (no tables yet) up to kSchemaVersion (older ones are read
/// as they are: a read-only connection never upgrades). A newer one (another process's newer
/// ucudnn upgraded the file since it was opened) is refused: its tables may mean something else.
Expected<int> readable_version(sqlite3* db);

/// Creates the schema in an empty file (version 0) or upgrades an older file step by step, and
/// records the current version; the caller's transaction makes it all or nothing.
Status create_or_upgrade(sqlite3* db, int version);

/// What is wrong with the schema of a file of `version` (kOldestSchemaVersion to kSchemaVersion):
/// a missing table or index, a missing column, a key without one of its columns; "" for none.
Expected<std::string> schema_problems(sqlite3* db, int version);

}  // namespace ucudnn::store
