#pragma once
// Rows in and out: what a row must be to be stored, writing rows and coverage bounds, one
// kernel's lookup, every row read back, and rows read a layer at a time (RowReader).

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/candidate_kinds.h"
#include "core/expected.h"
#include "core/measurement.h"
#include "store/columns.h"
#include "store/database_types.h"
#include "store/sqlite.h"

namespace ucudnn::store {

/// A row as a person finds it: "algo 3 math_type 1" or "engine eng12:k3=1", with its micro-batch.
std::string describe_row(const Measurement& m);

/// Every row of one kind of `op` checked before anything is written, by the rule every reader
/// shares (core/row_rules.h); the error names the first bad one ("row 2 (engine eng1: at
/// micro-batch 4): ...").
Status check_rows(const std::vector<Measurement>& rows, ConvOp op, CandidateKind kind);
/// The same for rows of any kind.
Status check_rows(const std::vector<StoredRow>& rows);
/// The same for one row of many, the `index`th (from 0), as rows are stored one at a time.
Status check_row(const StoredRow& row, std::size_t index);

/// The statements of a write transaction: rows inserted (an existing row is kept, never
/// replaced) and coverage bounds raised (never lowered). Statements live as long as this object.
class RowWriter {
 public:
  static Expected<RowWriter> prepare(sqlite3* db);
  Status insert(const StoredRow& row);
  /// Raises the bound of `kind`'s rows of `kernel` to `bound` (SIZE_MAX: any workspace).
  Status raise_coverage(const KernelKey& kernel, CandidateKind kind, std::size_t bound);
  /// Raises a coverage bound to the one `row` holds (a merge: the bound as stored, kind included).
  Status raise_coverage(const CoverageRow& row);
  /// How many of the rows inserted were new.
  long long inserted() const { return inserted_; }
  /// How many coverage bounds went up (a new one counts).
  long long coverage_raised() const { return coverage_raised_; }

 private:
  RowWriter(sqlite3* db, Statement insert, Statement coverage)
      : db_(db), insert_(std::move(insert)), coverage_(std::move(coverage)) {}
  sqlite3* db_;
  Statement insert_;
  Statement coverage_;
  long long inserted_ = 0;
  long long coverage_raised_ = 0;
};

/// One kind's coverage and rows of one micro-batch kernel in a file of `version` (1 to 3);
/// nullopt where that kind has no coverage row (a version-1 file knows legacy algorithms only).
Expected<std::optional<KernelLookup>> look_up(sqlite3* db, int version, const KernelKey& kernel, CandidateKind kind);

/// What a coverage row must be to be merged or read: a known kind of candidate and a bound >= 0;
/// the error names it as the `index`th (from 0) of its table.
Status check_coverage_row(const CoverageRow& row, std::size_t index);

/// The rows and coverage rows of a file of `version` (1 to 3) that cannot be what store() writes
/// (a value of the wrong type or out of range, a time outside 0 to 1e9 ms, a legacy row with a
/// negative algorithm, a negative bound): empty where there is none, else the first of each
/// table, named, and how many there are (`db verify`). Reads a row at a time; counts the rows and
/// coverage rows it read into `checked` (whatever it found).
Expected<std::string> row_problems(sqlite3* db, int version, Verification* checked);

/// Every row of a file of `version` (1 to 3), ordered by device, layer, op, micro-batch,
/// algorithm, math type and engine.
Expected<std::vector<StoredRow>> read_all_rows(sqlite3* db, int version);

/// What a device has rows of: one layer (signature) of one op, and how many rows.
struct StoredLayer {
  ConvOp op = ConvOp::kForward;
  std::string layer;
  long long rows = 0;
};

/// Reads rows a layer at a time, as SQLite steps through them: memory does not grow with the
/// rows. Valid inside one read transaction (BenchmarkDatabase::read_rows), whose snapshot every
/// query sees. A file of `version` 0 (no ucudnn tables) has nothing. Its own errors start with
/// `where` (the database's name).
class RowReader {
 public:
  RowReader(sqlite3* db, int version, std::string where) : db_(db), version_(version), where_(std::move(where)) {}

  /// The device identities that rows are of, ordered as all_rows orders them.
  Expected<std::vector<DeviceIdentity>> identities();
  /// The layers of each op that `identity` has rows of, ordered by layer, then op.
  Expected<std::vector<StoredLayer>> layers(const DeviceIdentity& identity);
  /// Hands each row of `layer` of `op` on `identity` to `visit`, ordered by micro-batch,
  /// algorithm, math type and engine; an error of `visit` stops the walk and is returned as it is.
  Status for_each_row(const DeviceIdentity& identity, ConvOp op, const std::string& layer,
                      const std::function<Status(const StoredRow&)>& visit);
  /// Hands every row of the file to `visit`, a layer at a time, in all_rows' order.
  Status for_each_row(const std::function<Status(const StoredRow&)>& visit);
  /// Hands every coverage row to `visit`, in the file's order.
  Status for_each_coverage(const std::function<Status(const CoverageRow&)>& visit);

 private:
  sqlite3* db_;
  int version_;
  std::string where_;
};

}  // namespace ucudnn::store
