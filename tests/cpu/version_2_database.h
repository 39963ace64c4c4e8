#pragma once
// A benchmark database as ucudnn of schema version 2 wrote it (engines, before host times), built
// with that version's own DDL, copied here as literal SQL from src/store/database.cpp of the
// commit before schema 3: the upgrade is tested against the file format of the past.

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/device_identity.h"
#include "version_1_database.h"

namespace ucudnn::testing {

inline constexpr const char* kVersion2Schema[] = {
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS measurements("
    " gpu_name TEXT NOT NULL, compute_capability INTEGER NOT NULL, sm_count INTEGER NOT NULL,"
    " cudnn_version INTEGER NOT NULL, cuda_runtime_version INTEGER NOT NULL,"
    " op TEXT NOT NULL, layer TEXT NOT NULL, micro_batch INTEGER NOT NULL,"
    " algo INTEGER NOT NULL, math_type INTEGER NOT NULL, deterministic INTEGER NOT NULL,"
    " time_ms REAL NOT NULL, workspace_bytes INTEGER NOT NULL, measured_at TEXT NOT NULL,"
    " engine TEXT NOT NULL DEFAULT '')",
    "CREATE UNIQUE INDEX IF NOT EXISTS measurements_key ON measurements(gpu_name, compute_capability,"
    " sm_count, cudnn_version, cuda_runtime_version, op, layer, micro_batch, algo, math_type, engine)",
    "CREATE TABLE IF NOT EXISTS coverage("
    " gpu_name TEXT NOT NULL, compute_capability INTEGER NOT NULL, sm_count INTEGER NOT NULL,"
    " cudnn_version INTEGER NOT NULL, cuda_runtime_version INTEGER NOT NULL,"
    " op TEXT NOT NULL, layer TEXT NOT NULL, micro_batch INTEGER NOT NULL,"
    " measured_up_to INTEGER NOT NULL, candidates INTEGER NOT NULL DEFAULT 0,"
    " PRIMARY KEY(gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, op, layer,"
    " micro_batch, candidates))",
    "INSERT INTO meta(key, value) VALUES('schema_version', '2')",
};

/// One row of a version-2 file: a version-1 row plus its engine ('' for a legacy algorithm).
struct Version2Row {
  Version1Row row;
  std::string engine;
};

/// One coverage row of a version-2 file, of one kind of candidate (0 legacy, 1 engines).
struct Version2Coverage {
  Version1Coverage coverage;
  int candidates = 0;
};

/// Writes a new version-2 database at `path` holding `rows` and `coverage` of `identity`, all in
/// one transaction (detail::write_database); false on any failure.
inline bool write_version_2_database(const std::string& path, const DeviceIdentity& identity,
                                     const std::vector<Version2Row>& rows,
                                     const std::vector<Version2Coverage>& coverage) {
  return detail::write_database(path, kVersion2Schema, [&](sqlite3* db) {
    bool ok = true;
    for (const Version2Row& v : rows) {
      const Version1Row& r = v.row;
      ok = ok &&
           detail::run_statement(db,
                                 "INSERT INTO measurements(gpu_name, compute_capability, sm_count, cudnn_version, "
                                 "cuda_runtime_version, op, layer, measured_at, engine, micro_batch, algo, math_type, "
                                 "deterministic, workspace_bytes, time_ms) "
                                 "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
                                 identity, {r.op, r.layer, "2026-06-01T00:00:00Z", v.engine},
                                 {r.micro_batch, r.algo, r.math_type, r.deterministic, r.workspace_bytes}, &r.time_ms);
    }
    for (const Version2Coverage& v : coverage) {
      const Version1Coverage& c = v.coverage;
      ok = ok && detail::run_statement(db,
                                       "INSERT INTO coverage(gpu_name, compute_capability, sm_count, cudnn_version, "
                                       "cuda_runtime_version, op, layer, micro_batch, measured_up_to, candidates) "
                                       "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                                       identity, {c.op, c.layer}, {c.micro_batch, c.measured_up_to, v.candidates},
                                       nullptr);
    }
    return ok;
  });
}

}  // namespace ucudnn::testing
