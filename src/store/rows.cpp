#include "store/rows.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>

#include "core/candidate_kinds.h"
#include "core/measurement_csv.h"
#include "core/row_rules.h"

namespace ucudnn::store {
namespace {

constexpr std::int64_t kUnbounded = std::numeric_limits<std::int64_t>::max();

std::int64_t to_stored_bound(std::size_t bound) {
  return bound >= static_cast<std::size_t>(kUnbounded) ? kUnbounded : static_cast<std::int64_t>(bound);
}
std::size_t from_stored_bound(std::int64_t bound) {
  return bound >= kUnbounded ? std::numeric_limits<std::size_t>::max() : static_cast<std::size_t>(bound);
}

const char* a_kind(CandidateKind kind) { return kind_info(kind).article; }

std::string which_row(std::size_t i, const Measurement& m) {
  return "row " + std::to_string(i + 1) + " (" + describe_row(m) + ")";
}

// The rows of a kernel that are of one kind: an engine row has an engine id, a legacy row none.
std::string of_kind_condition(int parameter) { return " AND (engine <> '') = ?" + std::to_string(parameter); }

// A row read back from a file, which any program may have written: it must be what store() would
// have stored (of `kind`, where given), or it is refused and named, never planned with.
Status check_read_row(const Status& read, const StoredRow& row, std::optional<CandidateKind> kind) {
  if (!read) return read.error().prefixed("a stored row of this kernel cannot be a measurement: its ");
  Status checked = check_measurement(row.op, row.measurement);
  if (checked && kind && row.measurement.candidate.kind != *kind) {
    checked = Error{ErrorCode::kBadParam, std::string("it is ") + a_kind(row.measurement.candidate.kind) +
                                              " candidate, not " + a_kind(*kind) + " one"};
  }
  if (!checked) {
    return checked.error().prefixed("the stored row (" + describe_row(row.measurement) + ") cannot be a measurement: ");
  }
  return Status::success();
}

}  // namespace

std::string describe_row(const Measurement& m) {
  // A numbered kind's candidate is its algorithm and math type; another's, its (truncated) id.
  const Candidate& c = m.candidate;
  const CandidateKindInfo& kind = kind_info(c.kind);
  const std::string candidate = kind.numbered ? kind.describe(c) + " math_type " + std::to_string(c.math_type)
                                              : std::string(kind.name) + " " + c.engine_id.substr(0, 80);
  return candidate + " at micro-batch " + std::to_string(m.micro_batch);
}

Status check_rows(const std::vector<Measurement>& rows, ConvOp op, CandidateKind kind) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Measurement& m = rows[i];
    if (m.candidate.kind != kind) {
      return Error{ErrorCode::kBadParam,
                   which_row(i, m) + " is " + a_kind(m.candidate.kind) + " candidate, not " + a_kind(kind) + " one"};
    }
    auto checked = check_measurement(op, m);
    if (!checked) return checked.error().prefixed(which_row(i, m) + ": ");
  }
  return Status::success();
}

Status check_rows(const std::vector<StoredRow>& rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) UCUDNN_TRY(check_row(rows[i], i));
  return Status::success();
}

Status check_row(const StoredRow& row, std::size_t index) {
  auto checked = check_measurement(row.op, row.measurement);
  if (!checked) return checked.error().prefixed(which_row(index, row.measurement) + ": ");
  return Status::success();
}

Expected<RowWriter> RowWriter::prepare(sqlite3* db) {
  const auto& rows = columns_of<StoredRow>();
  const auto& coverage = columns_of<CoverageRow>();
  UCUDNN_TRY_ASSIGN(Statement insert, Statement::prepare(db, "INSERT INTO measurements(" + column_list(rows) +
                                                                 ") VALUES(" + parameters(rows.size()) +
                                                                 ") ON CONFLICT DO NOTHING"));
  UCUDNN_TRY_ASSIGN(Statement raise,
                    Statement::prepare(db, "INSERT INTO coverage(" + column_list(coverage) + ") VALUES(" +
                                               parameters(coverage.size()) +
                                               ") ON CONFLICT DO UPDATE SET measured_up_to = "
                                               "excluded.measured_up_to WHERE excluded.measured_up_to > "
                                               "measured_up_to"));  // raised, never lowered
  return RowWriter(db, std::move(insert), std::move(raise));
}

Status RowWriter::insert(const StoredRow& row) {
  insert_.reset();
  bind_columns(insert_, row);
  const int rc = insert_.step();
  if (rc != SQLITE_DONE) return step_error(insert_, rc);
  inserted_ += sqlite3_changes(db_);
  return Status::success();
}

Status RowWriter::raise_coverage(const KernelKey& kernel, CandidateKind kind, std::size_t bound) {
  return raise_coverage(CoverageRow{kernel, to_stored_bound(bound), static_cast<int>(kind)});
}

Status RowWriter::raise_coverage(const CoverageRow& row) {
  coverage_.reset();
  bind_columns(coverage_, row);
  const int rc = coverage_.step();
  if (rc != SQLITE_DONE) return step_error(coverage_, rc);
  coverage_raised_ += sqlite3_changes(db_);  // 0 where the bound stood as high already
  return Status::success();
}

Expected<std::optional<KernelLookup>> look_up(sqlite3* db, int version, const KernelKey& kernel, CandidateKind kind) {
  // A version-1 file (read-only, so not upgraded) knows legacy algorithms only, and its coverage
  // has no kind (in_version leaves `candidates` out of the key).
  if (version < 2 && kind != CandidateKind::kLegacy) return std::optional<KernelLookup>();
  const CoverageRow of_kind{kernel, 0, static_cast<int>(kind)};
  UCUDNN_TRY_ASSIGN(Statement coverage,
                    Statement::prepare(db, "SELECT measured_up_to FROM coverage WHERE " +
                                               key_condition(in_version(columns_of<CoverageRow>(), version))));
  bind_key_columns(coverage, of_kind, version);
  int rc = coverage.step();
  if (rc == SQLITE_DONE) return std::optional<KernelLookup>();
  if (rc != SQLITE_ROW) return step_error(coverage, rc);
  KernelLookup found;
  std::int64_t bound = 0;
  Status bound_read = read_value(coverage, 0, &bound);
  if (bound_read && bound < 0)
    bound_read = Error{ErrorCode::kBadParam, "holds the negative bound " + std::to_string(bound)};
  if (!bound_read) return bound_read.error().prefixed("its coverage row's measured_up_to ");
  found.measured_up_to = from_stored_bound(bound);
  const int kind_parameter = static_cast<int>(columns_of<KernelKey>().size()) + 1;
  UCUDNN_TRY_ASSIGN(Statement rows, Statement::prepare(db, "SELECT " + column_list(columns_of<StoredRow>(), version) +
                                                               " FROM measurements WHERE " +
                                                               key_condition(columns_of<KernelKey>()) +
                                                               (version < 2 ? "" : of_kind_condition(kind_parameter))));
  bind_key_columns(rows, kernel);
  if (version >= 2) rows.bind(kind_parameter, std::int64_t{static_cast<int>(kind)});
  while ((rc = rows.step()) == SQLITE_ROW) {
    StoredRow row;
    UCUDNN_TRY(check_read_row(read_columns(rows, &row), row, kind));
    found.rows.push_back(std::move(row.measurement));
  }
  if (rc != SQLITE_DONE) return step_error(rows, rc);
  return std::optional<KernelLookup>(std::move(found));
}

Status check_coverage_row(const CoverageRow& row, std::size_t index) {
  const std::string which = "coverage row " + std::to_string(index + 1) + " (" + std::string(short_name(row.kernel.op)) +
                            " at micro-batch " + std::to_string(row.kernel.micro_batch) + ")";
  if (row.candidates < 0 || row.candidates >= kCandidateKindCount) {
    return Error{ErrorCode::kBadParam, which + ": unknown kind of candidate " + std::to_string(row.candidates)};
  }
  if (row.measured_up_to < 0)
    return Error{ErrorCode::kBadParam, which + ": negative bound " + std::to_string(row.measured_up_to)};
  return Status::success();
}

Expected<std::string> row_problems(sqlite3* db, int version, Verification* checked) {
  std::string problems;
  const auto walk = [&](const std::string& table, const std::string& columns, long long* walked,
                        const std::function<Status(const Statement&)>& check) -> Status {
    UCUDNN_TRY_ASSIGN(Statement select, Statement::prepare(db, "SELECT " + columns + " FROM " + table));
    long long bad = 0;
    std::string first;
    int rc;
    *walked = 0;
    while ((rc = select.step()) == SQLITE_ROW) {
      ++*walked;
      const Status checked = check(select);
      if (!checked && bad++ == 0) first = checked.message();
    }
    if (rc != SQLITE_DONE) return step_error(select, rc);
    if (bad > 0) {
      problems += std::string(problems.empty() ? "" : "; ") + std::to_string(bad) + " row" + (bad == 1 ? "" : "s") +
                  " of " + table + " cannot be " + (table == "coverage" ? "a coverage bound" : "a measurement") +
                  ", the first: " + first;
    }
    return Status::success();
  };
  StoredRow row;
  UCUDNN_TRY(
      walk("measurements", column_list(columns_of<StoredRow>(), version), &checked->rows,
           [&](const Statement& select) { return check_read_row(read_columns(select, &row), row, std::nullopt); }));
  CoverageRow bound;
  std::size_t index = 0;
  UCUDNN_TRY(walk("coverage", column_list(columns_of<CoverageRow>(), version), &checked->coverage_bounds,
                  [&](const Statement& select) -> Status {
                    const Status read = read_columns(select, &bound);
                    if (!read) return read.error().prefixed("coverage row " + std::to_string(++index) + "'s ");
                    return check_coverage_row(bound, index++);
                  }));
  return problems;
}

Expected<std::vector<StoredRow>> read_all_rows(sqlite3* db, int version) {
  UCUDNN_TRY_ASSIGN(Statement select, Statement::prepare(db, "SELECT " + column_list(columns_of<StoredRow>(), version) +
                                                                 " FROM measurements"));
  std::vector<StoredRow> rows;
  int rc;
  while ((rc = select.step()) == SQLITE_ROW) {
    StoredRow row;
    UCUDNN_TRY(read_columns(select, &row));
    rows.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) return step_error(select, rc);
  // The order of an export: by device, then layer before op. (Text compares as SQLite's BINARY
  // collation does: byte by byte.)
  const auto order = [](const StoredRow& r) {
    const DeviceIdentity& d = r.identity;
    const Measurement& m = r.measurement;
    return std::make_tuple(std::cref(d.gpu_name), d.compute_capability, d.sm_count, d.cudnn_version,
                           d.cuda_runtime_version, std::cref(r.layer), std::string(short_name(r.op)), m.micro_batch,
                           m.candidate.algorithm, m.candidate.math_type, std::cref(m.candidate.engine_id));
  };
  std::sort(rows.begin(), rows.end(), [&](const StoredRow& a, const StoredRow& b) { return order(a) < order(b); });
  return rows;
}

}  // namespace ucudnn::store

namespace ucudnn::store {
namespace {

// The kernel key's columns but those named in `left_out`: the identity alone, or one layer of one op.
bool left_out_of(const char* name, const std::vector<std::string>& left_out) {
  return std::find(left_out.begin(), left_out.end(), name) != left_out.end();
}

std::vector<ColumnInfo> key_columns_but(const std::vector<std::string>& left_out) {
  std::vector<ColumnInfo> kept;
  for (const ColumnInfo& c : columns_of<KernelKey>()) {
    if (!left_out_of(c.name.c_str(), left_out)) kept.push_back(c);
  }
  return kept;
}

// Binds those columns of `key` to parameters ?1, ?2, ... (the order of key_condition).
void bind_key_but(Statement& statement, const KernelKey& key, const std::vector<std::string>& left_out) {
  int index = 1;
  visit_columns(key, [&](const Column& c, const auto& value) {
    if (!left_out_of(c.name, left_out)) bind_value(statement, index++, value);
  });
}

const std::vector<std::string> kLayerColumns = {"op", "layer", "micro_batch"};  // left: the identity
const std::vector<std::string> kMicroBatchColumn = {"micro_batch"};            // left: identity, op, layer

}  // namespace

Expected<std::vector<DeviceIdentity>> RowReader::identities() {
  std::vector<DeviceIdentity> identities;
  if (version_ == 0) return identities;
  const auto failed = [&](const Error& error) { return error.prefixed(where_); };
  const std::string columns = column_list(key_columns_but(kLayerColumns));
  auto select = Statement::prepare(db_, "SELECT DISTINCT " + columns + " FROM measurements ORDER BY " + columns);
  if (!select) return failed(select.error());
  int rc;
  while ((rc = select->step()) == SQLITE_ROW) {
    KernelKey key;
    int index = 0;
    Status read = Status::success();
    visit_columns(key, [&](const Column& c, auto& value) {
      if (!left_out_of(c.name, kLayerColumns) && read.ok()) read = read_value(*select, index++, &value);
    });
    if (!read) return failed(read.error());
    identities.push_back(std::move(key.identity));
  }
  if (rc != SQLITE_DONE) return failed(step_error(*select, rc));
  return identities;
}

Expected<std::vector<StoredLayer>> RowReader::layers(const DeviceIdentity& identity) {
  std::vector<StoredLayer> layers;
  if (version_ == 0) return layers;
  const auto failed = [&](const Error& error) { return error.prefixed(where_); };
  auto select = Statement::prepare(db_, "SELECT op, layer, COUNT(*) FROM measurements WHERE " +
                                            key_condition(key_columns_but(kLayerColumns)) +
                                            " GROUP BY op, layer ORDER BY layer, op");
  if (!select) return failed(select.error());
  bind_key_but(*select, KernelKey{identity, ConvOp::kForward, "", 0}, kLayerColumns);
  int rc;
  while ((rc = select->step()) == SQLITE_ROW) {
    StoredLayer layer;
    Status read = read_value(*select, 0, &layer.op);
    if (read) read = read_value(*select, 1, &layer.layer);
    if (!read) return failed(read.error());
    layer.rows = select->column_int(2);
    layers.push_back(std::move(layer));
  }
  if (rc != SQLITE_DONE) return failed(step_error(*select, rc));
  return layers;
}

Status RowReader::for_each_row(const DeviceIdentity& identity, ConvOp op, const std::string& layer,
                               const std::function<Status(const StoredRow&)>& visit) {
  if (version_ == 0) return Status::success();
  const auto failed = [&](const Error& error) { return error.prefixed(where_); };
  // The unique index's order after (identity, op, layer): SQLite walks the index, sorting nothing.
  auto select = Statement::prepare(db_, "SELECT " + column_list(columns_of<StoredRow>(), version_) +
                                            " FROM measurements WHERE " +
                                            key_condition(key_columns_but(kMicroBatchColumn)) +
                                            " ORDER BY micro_batch, algo, math_type" + (version_ < 2 ? "" : ", engine"));
  if (!select) return failed(select.error());
  bind_key_but(*select, KernelKey{identity, op, layer, 0}, kMicroBatchColumn);
  StoredRow row;  // one row's storage, used again for each
  int rc;
  while ((rc = select->step()) == SQLITE_ROW) {
    const Status read = read_columns(*select, &row);
    if (!read) return failed(read.error());
    UCUDNN_TRY(visit(row));
  }
  if (rc != SQLITE_DONE) return failed(step_error(*select, rc));
  return Status::success();
}

Status RowReader::for_each_row(const std::function<Status(const StoredRow&)>& visit) {
  UCUDNN_TRY_ASSIGN(const std::vector<DeviceIdentity> identities, this->identities());
  for (const DeviceIdentity& identity : identities) {
    UCUDNN_TRY_ASSIGN(const std::vector<StoredLayer> layers, this->layers(identity));
    for (const StoredLayer& layer : layers) UCUDNN_TRY(for_each_row(identity, layer.op, layer.layer, visit));
  }
  return Status::success();
}

Status RowReader::for_each_coverage(const std::function<Status(const CoverageRow&)>& visit) {
  if (version_ == 0) return Status::success();
  const auto failed = [&](const Error& error) { return error.prefixed(where_); };
  auto select =
      Statement::prepare(db_, "SELECT " + column_list(columns_of<CoverageRow>(), version_) + " FROM coverage");
  if (!select) return failed(select.error());
  CoverageRow row;
  int rc;
  while ((rc = select->step()) == SQLITE_ROW) {
    const Status read = read_columns(*select, &row);
    if (!read) return failed(read.error().prefixed("a coverage row's "));
    UCUDNN_TRY(visit(row));
  }
  if (rc != SQLITE_DONE) return failed(step_error(*select, rc));
  return Status::success();
}

}  // namespace ucudnn::store
