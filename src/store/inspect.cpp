#include "store/inspect.h"

#include <sqlite3.h>

#include "store/rows.h"
#include "store/schema.h"
#include "store/sqlite.h"

namespace ucudnn::store {

Expected<DatabaseStats> read_stats(sqlite3* db) {
  DatabaseStats stats;
  UCUDNN_TRY_ASSIGN(const int version, readable_version(db));
  if (version == 0) return stats;
  // The engine rows in the same pass over the table as the count (a version-1 file has none).
  const std::string engine_rows = version < 2 ? "0" : "coalesce(sum(engine <> ''), 0)";
  UCUDNN_TRY_ASSIGN(Statement count, Statement::prepare(db,
                                                        "SELECT count(*), (SELECT count(*) FROM (SELECT "
                                                        "DISTINCT op, layer FROM measurements)), " +
                                                            engine_rows + " FROM measurements"));
  int rc = count.step();
  if (rc != SQLITE_ROW) return step_error(count, rc);
  stats.rows = count.column_int(0);
  stats.kernels = count.column_int(1);
  stats.engine_rows = count.column_int(2);
  // Every list is read to its end or the whole answer fails: never a shortened list.
  UCUDNN_TRY_ASSIGN(Statement gpus,
                    Statement::prepare(db, "SELECT DISTINCT gpu_name FROM measurements ORDER BY gpu_name"));
  while ((rc = gpus.step()) == SQLITE_ROW) stats.gpus.push_back(gpus.column_text(0));
  if (rc != SQLITE_DONE) return step_error(gpus, rc);
  UCUDNN_TRY_ASSIGN(Statement versions,
                    Statement::prepare(db, "SELECT DISTINCT cudnn_version FROM measurements ORDER BY 1"));
  while ((rc = versions.step()) == SQLITE_ROW) stats.cudnn_versions.push_back(static_cast<int>(versions.column_int(0)));
  if (rc != SQLITE_DONE) return step_error(versions, rc);
  return stats;
}

Expected<std::string> verification_problems(sqlite3* db) {
  std::string problem;
  UCUDNN_TRY_ASSIGN(Statement check, Statement::prepare(db, "PRAGMA integrity_check"));
  int rc;
  while ((rc = check.step()) == SQLITE_ROW) {
    const std::string line = check.column_text(0);
    if (line != "ok") problem += (problem.empty() ? "" : "; ") + line;
  }
  if (rc != SQLITE_DONE) return Error{ErrorCode::kStorage, "the integrity check could not finish: " + check.error(rc)};
  if (!problem.empty()) return problem;
  UCUDNN_TRY_ASSIGN(const int version, read_schema_version(db));
  if (version == 0) {
    return std::string("it holds no tables yet: an empty file, or a database that a process is creating right now "
                       "(verify it again once that process has stored its first rows)");
  }
  // Older versions are read as they are where the file was opened read-only (a writable open
  // upgrades them).
  if (version < kOldestSchemaVersion || version > kSchemaVersion) {
    return "schema version " + std::to_string(version) + ", expected " + std::to_string(kSchemaVersion);
  }
  UCUDNN_TRY_ASSIGN(problem, schema_problems(db, version));
  if (!problem.empty()) return problem;
  // Every row as a lookup reads it: a row no measurement could be is never planned with.
  return row_problems(db, version);
}

}  // namespace ucudnn::store
