#include "store/rows.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>
#include <utility>

#include "core/candidate_kinds.h"
#include "core/measurement_csv.h"

namespace ucudnn::store {
namespace {

constexpr std::int64_t kUnbounded = std::numeric_limits<std::int64_t>::max();

std::int64_t to_stored_bound(std::size_t bound) {
  return bound >= static_cast<std::size_t>(kUnbounded) ? kUnbounded : static_cast<std::int64_t>(bound);
}
std::size_t from_stored_bound(std::int64_t bound) {
  return bound >= kUnbounded ? std::numeric_limits<std::size_t>::max() : static_cast<std::size_t>(bound);
}

// What a row must be to be stored, so that every stored row reads back as its kind.
Status check_row(const Measurement& m) {
  // NaN fails both comparisons: only a finite, non-negative time is stored.
  if (!(m.time_ms >= 0 && m.time_ms <= kMaxTimeMs)) return Error{"its GPU time is not from 0 to 1e9 ms"};
  if (!(m.host_ms >= 0 && m.host_ms <= kMaxTimeMs)) return Error{"its host time is not from 0 to 1e9 ms"};
  return kind_info(kind_of(m)).check_row(m);
}

const char* a_kind(CandidateKind kind) { return kind_info(kind).article; }

std::string which_row(std::size_t i, const Measurement& m) {
  return "row " + std::to_string(i + 1) + " (" + describe_row(m) + ")";
}

// The rows of a kernel that are of one kind: an engine row has an engine id, a legacy row none.
std::string of_kind_condition(int parameter) { return " AND (engine <> '') = ?" + std::to_string(parameter); }

}  // namespace

std::string describe_row(const Measurement& m) {
  // A numbered kind's candidate is its algorithm and math type; another's, its (truncated) id.
  const CandidateKindInfo& kind = kind_info(kind_of(m));
  const std::string candidate = kind.numbered
                                    ? kind.describe(m.algo, m.engine) + " math_type " + std::to_string(m.math_type)
                                    : std::string(kind.name) + " " + m.engine.substr(0, 80);
  return candidate + " at micro-batch " + std::to_string(m.micro_batch);
}

Status check_rows(const std::vector<Measurement>& rows, CandidateKind kind) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Measurement& m = rows[i];
    if (kind_of(m) != kind) {
      return Error{which_row(i, m) + " is " + a_kind(kind_of(m)) + " candidate, not " + a_kind(kind) + " one"};
    }
    auto checked = check_row(m);
    if (!checked) return checked.error().prefixed(which_row(i, m) + ": ");
  }
  return Status::success();
}

Status check_rows(const std::vector<StoredRow>& rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto checked = check_row(rows[i].measurement);
    if (!checked) return checked.error().prefixed(which_row(i, rows[i].measurement) + ": ");
  }
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
  found.measured_up_to = from_stored_bound(coverage.column_int(0));
  const int kind_parameter = static_cast<int>(columns_of<KernelKey>().size()) + 1;
  UCUDNN_TRY_ASSIGN(Statement rows, Statement::prepare(db, "SELECT " + column_list(columns_of<StoredRow>(), version) +
                                                               " FROM measurements WHERE " +
                                                               key_condition(columns_of<KernelKey>()) +
                                                               (version < 2 ? "" : of_kind_condition(kind_parameter))));
  bind_key_columns(rows, kernel);
  if (version >= 2) rows.bind(kind_parameter, std::int64_t{static_cast<int>(kind)});
  while ((rc = rows.step()) == SQLITE_ROW) {
    StoredRow row;
    UCUDNN_TRY(read_columns(rows, &row));
    found.rows.push_back(std::move(row.measurement));
  }
  if (rc != SQLITE_DONE) return step_error(rows, rc);
  return std::optional<KernelLookup>(std::move(found));
}

Expected<std::vector<CoverageRow>> read_all_coverage(sqlite3* db, int version) {
  UCUDNN_TRY_ASSIGN(
      Statement select,
      Statement::prepare(db, "SELECT " + column_list(columns_of<CoverageRow>(), version) + " FROM coverage"));
  std::vector<CoverageRow> coverage;
  int rc;
  while ((rc = select.step()) == SQLITE_ROW) {
    CoverageRow row;
    UCUDNN_TRY(read_columns(select, &row));
    coverage.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) return step_error(select, rc);
  return coverage;
}

Status check_coverage(const std::vector<CoverageRow>& coverage) {
  for (std::size_t i = 0; i < coverage.size(); ++i) {
    const CoverageRow& row = coverage[i];
    const std::string which = "coverage row " + std::to_string(i + 1) + " (" + std::string(short_name(row.kernel.op)) +
                              " at micro-batch " + std::to_string(row.kernel.micro_batch) + ")";
    if (row.candidates < 0 || row.candidates >= kCandidateKindCount) {
      return Error{which + ": unknown kind of candidate " + std::to_string(row.candidates)};
    }
    if (row.measured_up_to < 0) return Error{which + ": negative bound " + std::to_string(row.measured_up_to)};
  }
  return Status::success();
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
                           m.algo, m.math_type, std::cref(m.engine));
  };
  std::sort(rows.begin(), rows.end(), [&](const StoredRow& a, const StoredRow& b) { return order(a) < order(b); });
  return rows;
}

}  // namespace ucudnn::store
