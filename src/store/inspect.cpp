#include "store/inspect.h"

#include <sqlite3.h>

#include <vector>

#include "core/conv_op.h"
#include "store/columns.h"
#include "store/rows.h"
#include "store/schema.h"
#include "store/sqlite.h"

namespace ucudnn::store {

namespace {

// Rows of `table` whose op is not spelled as ucudnn writes it ("FWD"): counted apart by any query
// that groups by the text, so they are refused, not counted.
Status ops_as_written(sqlite3* db, const char* table) {
  UCUDNN_TRY_ASSIGN(Statement odd, Statement::prepare(db, std::string("SELECT count(*), min(op) FROM ") + table +
                                                              " WHERE op NOT IN (?1, ?2, ?3)"));
  for (ConvOp op : kConvOps) odd.bind(static_cast<int>(op) + 1, std::string(short_name(op)));
  const int rc = odd.step();
  if (rc != SQLITE_ROW) return step_error(odd, rc);
  if (odd.column_int(0) == 0) return Status::success();
  ConvOp unused;
  const Status read = read_value(odd, 1, &unused);  // what a lookup says of it
  return Error{ErrorCode::kBadParam, std::to_string(odd.column_int(0)) + " rows of " + table +
                                         " cannot be read: the first one's op " + read.message() +
                                         " (`ucudnn db verify` names every problem)"};
}

// One pass over `table` that loads every column of every row: a value over the connection's length
// limit fails the statement at its row, before SQLite copies it anywhere.
Status values_within_bounds(sqlite3* db, const char* table, const std::vector<ColumnInfo>& columns) {
  std::string loaded;
  for (const ColumnInfo& c : columns)
    loaded += (loaded.empty() ? "" : " + ") + ("length(CAST(" + c.name + " AS BLOB))");
  UCUDNN_TRY_ASSIGN(Statement pass,
                    Statement::prepare(db, std::string("SELECT count(*) FROM ") + table + " WHERE " + loaded + " < 0"));
  const int rc = pass.step();
  if (rc != SQLITE_ROW) return step_error(pass, rc);
  return Status::success();
}

}  // namespace

Status stored_values_readable(sqlite3* db, int version) {
  if (version == 0) return Status::success();
  UCUDNN_TRY(values_within_bounds(db, "measurements", in_version(columns_of<StoredRow>(), version)));
  UCUDNN_TRY(values_within_bounds(db, "coverage", in_version(columns_of<CoverageRow>(), version)));
  UCUDNN_TRY(ops_as_written(db, "measurements"));
  return ops_as_written(db, "coverage");
}

Expected<DatabaseStats> read_stats(sqlite3* db) {
  DatabaseStats stats;
  UCUDNN_TRY_ASSIGN(const int version, readable_version(db));
  if (version == 0) return stats;
  UCUDNN_TRY(stored_values_readable(db, version));
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

Expected<std::string> verification_problems(sqlite3* db, Verification* checked) {
  std::string problem;
  UCUDNN_TRY_ASSIGN(Statement check, Statement::prepare(db, "PRAGMA integrity_check"));
  int rc;
  while ((rc = check.step()) == SQLITE_ROW) {
    const std::string line = check.column_text(0);
    if (line != "ok") problem += (problem.empty() ? "" : "; ") + line;
  }
  if (rc != SQLITE_DONE) return step_error(check, rc).prefixed("the integrity check could not finish: ");
  if (!problem.empty()) return problem;
  UCUDNN_TRY_ASSIGN(const int version, read_schema_version(db));
  checked->schema_version = version;
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
  return row_problems(db, version, checked);
}

}  // namespace ucudnn::store
