#include "store/schema.h"

#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "store/columns.h"
#include "store/sqlite.h"

namespace ucudnn::store {
namespace {

constexpr const char* kCreateMeta = "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)";

// "CREATE TABLE IF NOT EXISTS measurements( gpu_name TEXT NOT NULL, ...)" as of `version`; the
// key columns become the PRIMARY KEY where `key_is_primary` (coverage), else measurements_key
// holds them. The text is what files of every version have in sqlite_master: keep it byte for byte.
std::string create_table(const char* table, const std::vector<ColumnInfo>& all, int version, bool key_is_primary) {
  const std::vector<ColumnInfo> columns = in_version(all, version);
  std::string sql = std::string("CREATE TABLE IF NOT EXISTS ") + table + "(";
  for (std::size_t i = 0; i < columns.size(); ++i) sql += (i == 0 ? " " : ", ") + columns[i].declaration();
  if (key_is_primary) sql += ", PRIMARY KEY(" + key_column_list(columns) + ")";
  return sql + ")";
}

std::string create_measurements(int version) {
  return create_table("measurements", columns_of<StoredRow>(), version, false);
}
std::string create_measurements_key(int version) {
  return "CREATE UNIQUE INDEX IF NOT EXISTS measurements_key ON measurements(" +
         key_column_list(in_version(columns_of<StoredRow>(), version)) + ")";
}
std::string create_coverage(int version) { return create_table("coverage", columns_of<CoverageRow>(), version, true); }

bool adds_key_column(const std::vector<ColumnInfo>& columns, int version) {
  return std::any_of(columns.begin(), columns.end(),
                     [&](const ColumnInfo& c) { return c.in_key && c.since == version; });
}

// The statements that take a file of version `from` to `from + 1`, from the columns that version
// added: ALTER TABLE adds each (older rows read its default); a new column of measurements_key
// rebuilds the index; a new column of coverage's primary key rebuilds that table, which SQLite
// can only change so (its rows keep their values, the new column its default). (Version 2 added
// the engine to the rows and their key, and the kind of candidate to coverage's key; version 3
// added host_ms to the rows.) A change of another kind needs its own statements here.
std::vector<std::string> upgrade_statements(int from) {
  const int to = from + 1;
  std::vector<std::string> sql;
  const auto& measurements = columns_of<StoredRow>();
  for (const ColumnInfo& c : measurements) {
    if (c.since == to) sql.push_back("ALTER TABLE measurements ADD COLUMN " + c.declaration());
  }
  if (adds_key_column(measurements, to)) {
    sql.push_back("DROP INDEX IF EXISTS measurements_key");
    sql.push_back(create_measurements_key(to));
  }
  const auto& coverage = columns_of<CoverageRow>();
  if (adds_key_column(coverage, to)) {
    const std::string old = "coverage_version_" + std::to_string(from);
    const std::vector<ColumnInfo> kept = in_version(coverage, to);
    sql.push_back("ALTER TABLE coverage RENAME TO " + old);
    sql.push_back(create_coverage(to));
    sql.push_back("INSERT INTO coverage(" + column_list(kept) + ") SELECT " + column_list(kept, from) + " FROM " + old);
    sql.push_back("DROP TABLE " + old);
  } else {
    for (const ColumnInfo& c : coverage) {
      if (c.since == to) sql.push_back("ALTER TABLE coverage ADD COLUMN " + c.declaration());
    }
  }
  return sql;
}

// The columns of `table`; empty for a table that does not exist.
Expected<std::set<std::string>> columns_in_file(sqlite3* db, const std::string& table) {
  UCUDNN_TRY_ASSIGN(Statement select, Statement::prepare(db, "SELECT name FROM pragma_table_info(?1)"));
  select.bind(1, table);
  std::set<std::string> columns;
  int rc;
  while ((rc = select.step()) == SQLITE_ROW) columns.insert(select.column_text(0));
  if (rc != SQLITE_DONE) return step_error(select, rc);
  return columns;
}

// What keeps `index` (the primary key's index where empty) from keeping `table` to one row per key
// of `columns`: it must be a unique index, not partial, over exactly the key columns, each compared
// byte for byte. A plain index, a partial one, one over a column more (time_ms: a cheaper
// duplicate) or one that compares ops without case would let duplicate rows in. "" where none.
Expected<std::string> unique_key_problems(sqlite3* db, const std::string& table, const std::string& index,
                                          const std::vector<ColumnInfo>& columns) {
  const std::string named = index.empty() ? "the primary key of " + table : "the index " + index;
  UCUDNN_TRY_ASSIGN(Statement list, Statement::prepare(db,
                                                       "SELECT name, \"unique\", partial FROM pragma_index_list(?1) "
                                                       "WHERE (?2 = '' AND origin = 'pk') OR name = ?2"));
  list.bind(1, table).bind(2, index);
  int rc = list.step();
  if (rc == SQLITE_DONE) return named + (index.empty() ? " is missing" : " is not an index of " + table);
  if (rc != SQLITE_ROW) return step_error(list, rc);
  const std::string index_name = list.column_text(0);
  std::string problems;
  const auto add = [&](const std::string& text) { problems += (problems.empty() ? "" : "; ") + text; };
  if (list.column_int(1) != 1) add(named + " is not unique");
  if (list.column_int(2) != 0) add(named + " is partial (it has a WHERE clause)");
  UCUDNN_TRY_ASSIGN(Statement key,
                    Statement::prepare(db, "SELECT name, coll FROM pragma_index_xinfo(?1) WHERE key = 1"));
  key.bind(1, index_name);
  std::map<std::string, std::string> held;  // column -> collation
  while ((rc = key.step()) == SQLITE_ROW) {
    held[key.column_type(0) == SQLITE_TEXT ? key.column_text(0) : "an expression"] = key.column_text(1);
  }
  if (rc != SQLITE_DONE) return step_error(key, rc);
  for (const ColumnInfo& c : columns) {
    if (!c.in_key) continue;
    const auto found = held.find(c.name);
    if (found == held.end()) {
      add(named + " does not hold the column " + c.name);
      continue;
    }
    if (found->second != "BINARY")
      add(named + " compares the column " + c.name + " by " + found->second + ", not byte for byte");
    held.erase(found);
  }
  for (const auto& [extra, collation] : held) add(named + " also holds " + extra + ", not a key column");
  return problems;
}

}  // namespace

Expected<int> read_schema_version(sqlite3* db) {
  UCUDNN_TRY_ASSIGN(Statement tables, Statement::prepare(db, "SELECT name FROM sqlite_master WHERE type = 'table'"));
  std::set<std::string> names;
  int rc;
  while ((rc = tables.step()) == SQLITE_ROW) names.insert(tables.column_text(0));
  if (rc != SQLITE_DONE) return step_error(tables, rc);
  if (names.empty()) return 0;
  if (!names.count("meta"))
    return Error{ErrorCode::kBadParam, "it is an SQLite database, but not a ucudnn benchmark database"};
  UCUDNN_TRY_ASSIGN(Statement version, Statement::prepare(db, "SELECT value FROM meta WHERE key = 'schema_version'"));
  rc = version.step();
  if (rc == SQLITE_DONE) return Error{ErrorCode::kBadParam, "its schema version is missing"};
  if (rc != SQLITE_ROW) return step_error(version, rc);
  const std::string text = version.column_text(0);
  // Digits only, and few enough for an int: anything else is damage or not ours, said as such.
  int value = 0;
  const auto parsed = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isdigit(c);
  });
  if (!digits || parsed.ec != std::errc() || parsed.ptr != text.data() + text.size()) {
    return Error{ErrorCode::kBadParam, "its schema version '" + text.substr(0, 40) + "' is not a valid version number"};
  }
  // 0 means a file without tables; one whose meta table says 0 was changed outside ucudnn, and
  // reading it as empty would hide its rows.
  if (value < kOldestSchemaVersion) {
    return Error{ErrorCode::kBadParam, "its schema version " + std::to_string(value) + " is not one ucudnn writes (" +
                                           std::to_string(kOldestSchemaVersion) + " to " +
                                           std::to_string(kSchemaVersion) +
                                           "): its meta table was changed outside ucudnn"};
  }
  return value;
}

Expected<int> readable_version(sqlite3* db) {
  UCUDNN_TRY_ASSIGN(const int version, read_schema_version(db));
  if (version > kSchemaVersion) {
    return Error{ErrorCode::kBadParam, "its schema version " + std::to_string(version) +
                                           " is newer than this ucudnn's " + std::to_string(kSchemaVersion) +
                                           "; use a newer ucudnn"};
  }
  return version;
}

Status create_or_upgrade(sqlite3* db, int version) {
  if (version < 1) {
    for (const std::string& sql : {std::string(kCreateMeta), create_measurements(kSchemaVersion),
                                   create_measurements_key(kSchemaVersion), create_coverage(kSchemaVersion)}) {
      UCUDNN_TRY(sqlite_exec(db, sql));
    }
  } else {
    for (int from = version; from < kSchemaVersion; ++from) {
      for (const std::string& sql : upgrade_statements(from)) UCUDNN_TRY(sqlite_exec(db, sql));
    }
  }
  UCUDNN_TRY_ASSIGN(Statement set, Statement::prepare(db,
                                                      "INSERT INTO meta(key, value) VALUES('schema_version', ?1) "
                                                      "ON CONFLICT(key) DO UPDATE SET value = excluded.value"));
  set.bind(1, std::to_string(kSchemaVersion));
  const int rc = set.step();
  if (rc != SQLITE_DONE) return Error{ErrorCode::kStorage, set.error(rc)};
  return Status::success();
}

Expected<std::string> schema_problems(sqlite3* db, int version) {
  std::string problem;
  const auto add = [&](const std::string& text) { problem += (problem.empty() ? "" : "; ") + text; };
  // Every table and index of the schema, by name: a file that lost one is not a database the
  // library can use, whatever its integrity.
  UCUDNN_TRY_ASSIGN(Statement objects, Statement::prepare(db, "SELECT type, name FROM sqlite_master"));
  std::set<std::string> present;
  int rc;
  while ((rc = objects.step()) == SQLITE_ROW) present.insert(objects.column_text(0) + " " + objects.column_text(1));
  if (rc != SQLITE_DONE) return step_error(objects, rc);
  for (const char* wanted : {"table meta", "table measurements", "table coverage", "index measurements_key"}) {
    if (!present.count(wanted)) add(std::string("the ") + wanted + " is missing");
  }
  // Every column the version has, where its table exists, and a key that keeps one row per key
  // whatever its name: without the engine in measurements_key, say, an engine row would be
  // dropped as a duplicate of another engine's; with time_ms in it, a cheaper duplicate kept.
  const struct {
    const char* table;
    const char* key_index;   ///< "" for the table's primary key
    const char* key_object;  ///< what sqlite_master holds where the key can be read
    std::vector<ColumnInfo> columns;
  } tables[] = {
      {"measurements", "measurements_key", "index measurements_key", in_version(columns_of<StoredRow>(), version)},
      {"coverage", "", "table coverage", in_version(columns_of<CoverageRow>(), version)}};
  for (const auto& t : tables) {
    UCUDNN_TRY_ASSIGN(const auto found, columns_in_file(db, t.table));
    for (const ColumnInfo& c : t.columns) {
      if (!found.empty() && !found.count(c.name))
        add(std::string("the column ") + t.table + "." + c.name + " is missing");
    }
    if (!present.count(t.key_object)) continue;
    UCUDNN_TRY_ASSIGN(const std::string key, unique_key_problems(db, t.table, t.key_index, t.columns));
    if (!key.empty()) add(key);
  }
  return problem;
}

}  // namespace ucudnn::store
