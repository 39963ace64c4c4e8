#pragma once
// A benchmark database as ucudnn of schema version 1 wrote it (before engines), built with that
// version's own DDL, copied here as literal SQL from src/store/database.cpp of the commit before
// schema 2: the upgrade is tested against the file format of the past, not against whatever
// today's code would create.

#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/device_identity.h"

namespace ucudnn::testing {

inline constexpr const char* kVersion1Schema[] = {
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS measurements("
    " gpu_name TEXT NOT NULL, compute_capability INTEGER NOT NULL, sm_count INTEGER NOT NULL,"
    " cudnn_version INTEGER NOT NULL, cuda_runtime_version INTEGER NOT NULL,"
    " op TEXT NOT NULL, layer TEXT NOT NULL, micro_batch INTEGER NOT NULL,"
    " algo INTEGER NOT NULL, math_type INTEGER NOT NULL, deterministic INTEGER NOT NULL,"
    " time_ms REAL NOT NULL, workspace_bytes INTEGER NOT NULL, measured_at TEXT NOT NULL)",
    "CREATE UNIQUE INDEX IF NOT EXISTS measurements_key ON measurements(gpu_name, compute_capability,"
    " sm_count, cudnn_version, cuda_runtime_version, op, layer, micro_batch, algo, math_type)",
    "CREATE TABLE IF NOT EXISTS coverage("
    " gpu_name TEXT NOT NULL, compute_capability INTEGER NOT NULL, sm_count INTEGER NOT NULL,"
    " cudnn_version INTEGER NOT NULL, cuda_runtime_version INTEGER NOT NULL,"
    " op TEXT NOT NULL, layer TEXT NOT NULL, micro_batch INTEGER NOT NULL,"
    " measured_up_to INTEGER NOT NULL,"
    " PRIMARY KEY(gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, op, layer,"
    " micro_batch))",
    "INSERT INTO meta(key, value) VALUES('schema_version', '1')",
};

/// One row of a version-1 file (op by its short name, layer by its signature).
struct Version1Row {
  std::string op;
  std::string layer;
  int micro_batch = 0;
  int algo = 0;
  int math_type = 0;
  int deterministic = 1;
  double time_ms = 0.0;
  std::int64_t workspace_bytes = 0;
};

/// One coverage row of a version-1 file (INT64_MAX: complete for any limit).
struct Version1Coverage {
  std::string op;
  std::string layer;
  int micro_batch = 0;
  std::int64_t measured_up_to = 0;
};

namespace detail {

inline bool run_statement(sqlite3* db, const std::string& sql, const DeviceIdentity& id,
                          const std::vector<std::string>& texts, const std::vector<std::int64_t>& numbers,
                          const double* real) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) return false;
  int i = 1;
  sqlite3_bind_text(s, i++, id.gpu_name.c_str(), -1, SQLITE_TRANSIENT);
  for (const int n : {id.compute_capability, id.sm_count, id.cudnn_version, id.cuda_runtime_version}) {
    sqlite3_bind_int64(s, i++, n);
  }
  for (const std::string& text : texts) sqlite3_bind_text(s, i++, text.c_str(), -1, SQLITE_TRANSIENT);
  for (const std::int64_t n : numbers) sqlite3_bind_int64(s, i++, n);
  if (real) sqlite3_bind_double(s, i++, *real);
  const bool done = sqlite3_step(s) == SQLITE_DONE;
  sqlite3_finalize(s);
  return done;
}

/// Creates a new database at `path` with `schema` and fills it by `fill(db)`, all in one
/// transaction (rollback journal, as sqlite3 makes it); false on any failure.
template <std::size_t N, typename Fill>
bool write_database(const std::string& path, const char* const (&schema)[N], Fill&& fill) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    return false;
  }
  bool ok = sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr) == SQLITE_OK;
  for (const char* sql : schema) ok = ok && sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
  ok = ok && fill(db);
  ok = ok && sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(db);
  return ok;
}

}  // namespace detail

/// Writes a new version-1 database at `path` (rollback journal, as sqlite3 makes it) holding
/// `rows` and `coverage` of `identity`, all in one transaction; false on any failure.
inline bool write_version_1_database(const std::string& path, const DeviceIdentity& identity,
                                     const std::vector<Version1Row>& rows,
                                     const std::vector<Version1Coverage>& coverage) {
  return detail::write_database(path, kVersion1Schema, [&](sqlite3* db) {
    bool ok = true;
    for (const Version1Row& r : rows) {
      ok = ok &&
           detail::run_statement(db,
                                 "INSERT INTO measurements(gpu_name, compute_capability, sm_count, cudnn_version, "
                                 "cuda_runtime_version, op, layer, measured_at, micro_batch, algo, math_type, "
                                 "deterministic, workspace_bytes, time_ms) "
                                 "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                                 identity, {r.op, r.layer, "2026-01-01T00:00:00Z"},
                                 {r.micro_batch, r.algo, r.math_type, r.deterministic, r.workspace_bytes}, &r.time_ms);
    }
    for (const Version1Coverage& c : coverage) {
      ok = ok && detail::run_statement(db,
                                       "INSERT INTO coverage(gpu_name, compute_capability, sm_count, cudnn_version, "
                                       "cuda_runtime_version, op, layer, micro_batch, measured_up_to) "
                                       "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                                       identity, {c.op, c.layer}, {c.micro_batch, c.measured_up_to}, nullptr);
    }
    return ok;
  });
}

}  // namespace ucudnn::testing
