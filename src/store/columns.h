#pragma once
// The columns of the database's tables, named once: visit_columns() lists each table's columns in
// their stored order with the field each holds, and every CREATE, INSERT, WHERE, read and schema
// check is made from it (MIOpen's SQLiteSerializable idea: one visit over the fields).

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/candidate_kinds.h"
#include "core/conv_op.h"
#include "core/device_identity.h"
#include "core/expected.h"
#include "store/database_types.h"
#include "store/sqlite.h"

namespace ucudnn::store {

/// What a column is beside its field: the schema version that added it (a column added by ALTER
/// TABLE has a default, which a file of an older version reads in its place) and whether it is
/// part of its table's unique key (measurements_key; coverage's primary key).
struct Column {
  const char* name;
  int since = 1;
  bool in_key = false;
};
constexpr Column key_column(const char* name, int since = 1) { return Column{name, since, true}; }
constexpr Column value_column(const char* name, int since = 1) { return Column{name, since, false}; }

/// One micro-batch kernel on one device: what every row and coverage row of it is keyed by.
struct KernelKey {
  DeviceIdentity identity;
  ConvOp op = ConvOp::kForward;
  std::string layer;  ///< ConvKey::layer_signature()
  int micro_batch = 0;
};

/// One row of `coverage`: the rows of one kind of candidate of a kernel are complete up to a bound.
struct CoverageRow {
  KernelKey kernel;
  std::int64_t measured_up_to = 0;  ///< INT64_MAX: complete for any workspace
  int candidates = 0;               ///< CandidateKind
};

namespace detail {

// The eight columns of the kernel key, the first of both tables: the one place they are named.
template <typename Identity, typename Op, typename Layer, typename Batch, typename Visit>
void visit_kernel_key(Identity& identity, Op& op, Layer& layer, Batch& micro_batch, Visit& visit) {
  visit(key_column("gpu_name"), identity.gpu_name);
  visit(key_column("compute_capability"), identity.compute_capability);
  visit(key_column("sm_count"), identity.sm_count);
  visit(key_column("cudnn_version"), identity.cudnn_version);
  visit(key_column("cuda_runtime_version"), identity.cuda_runtime_version);
  visit(key_column("op"), op);
  visit(key_column("layer"), layer);
  visit(key_column("micro_batch"), micro_batch);
}

}  // namespace detail

/// Calls visit(Column, field) for each column of a row of `measurements` (StoredRow), of
/// `coverage` (CoverageRow) or of the kernel key that both begin with (KernelKey), in their stored
/// order; the fields are const where the row is. Every table, index, statement and schema check is
/// made from this list: a new column is one line here (and its `since` version).
template <typename Row, typename Visit>
void visit_columns(Row& row, Visit&& visit) {
  using Plain = std::remove_const_t<Row>;
  if constexpr (std::is_same_v<Plain, KernelKey>) {
    detail::visit_kernel_key(row.identity, row.op, row.layer, row.micro_batch, visit);
  } else if constexpr (std::is_same_v<Plain, StoredRow>) {
    auto& m = row.measurement;
    detail::visit_kernel_key(row.identity, row.op, row.layer, m.micro_batch, visit);
    visit(key_column("algo"), m.candidate.algorithm);  // Candidate::kNoAlgorithm (-1) for an engine
    visit(key_column("math_type"), m.candidate.math_type);
    visit(value_column("deterministic"), m.deterministic);
    visit(value_column("time_ms"), m.time_ms);
    visit(value_column("workspace_bytes"), m.workspace_bytes);
    visit(value_column("measured_at"), row.measured_at);
    visit(key_column("engine", 2), m.candidate.engine_id);  // '' for a legacy algorithm
    visit(value_column("host_ms", 3), m.host_ms);
  } else {
    static_assert(std::is_same_v<Plain, CoverageRow>, "visit_columns: not a row of the database");
    visit_columns(row.kernel, visit);
    visit(value_column("measured_up_to"), row.measured_up_to);
    visit(key_column("candidates", 2), row.candidates);  // CandidateKind
  }
}

enum class SqlType { kText, kInteger, kReal };

/// A column as SQL sees it (what visit_columns says, with the type its field has).
struct ColumnInfo {
  std::string name;
  SqlType type = SqlType::kInteger;
  int since = 1;
  bool in_key = false;

  /// As CREATE TABLE and ALTER TABLE ADD COLUMN write it: "engine TEXT NOT NULL DEFAULT ''".
  std::string declaration() const;
  /// The column in a SELECT from a file of `version`: its name, or the default where that version
  /// lacks it.
  std::string as_of(int version) const;
};

/// The columns of a table, in stored order: of KernelKey (the first of both tables), StoredRow
/// (`measurements`) or CoverageRow (`coverage`).
template <typename Row>
const std::vector<ColumnInfo>& columns_of();

/// "a, b, c": `columns` in a SELECT from a file of `version` (ColumnInfo::as_of).
std::string column_list(const std::vector<ColumnInfo>& columns, int version = kSchemaVersion);
/// "a, b": the names of the key columns among `columns`.
std::string key_column_list(const std::vector<ColumnInfo>& columns);
/// The columns that a file of `version` has.
std::vector<ColumnInfo> in_version(const std::vector<ColumnInfo>& columns, int version);
/// "?1, ?2, ..., ?count".
std::string parameters(std::size_t count);
/// "gpu_name = ?1 AND ... AND micro_batch = ?8": the key columns among `columns`, equal to
/// parameters from ?1 on (bind_key_columns).
std::string key_condition(const std::vector<ColumnInfo>& columns);

// The value of each kind of field in SQL (a ConvOp as its short name; a bad one read is an error).
SqlType sql_type(const std::string&);
SqlType sql_type(ConvOp);
SqlType sql_type(double);
SqlType sql_type(std::int64_t);
SqlType sql_type(std::size_t);
SqlType sql_type(int);
SqlType sql_type(bool);
void bind_value(Statement& statement, int index, const std::string& value);
void bind_value(Statement& statement, int index, ConvOp value);
void bind_value(Statement& statement, int index, double value);
void bind_value(Statement& statement, int index, std::int64_t value);
void bind_value(Statement& statement, int index, std::size_t value);
void bind_value(Statement& statement, int index, int value);
void bind_value(Statement& statement, int index, bool value);
/// A text longer than a table line (kMaxTableLineBytes), which holds every text of a row, is
/// refused before it is copied.
Status read_value(const Statement& statement, int index, std::string* value);
Status read_value(const Statement& statement, int index, ConvOp* value);
Status read_value(const Statement& statement, int index, double* value);
Status read_value(const Statement& statement, int index, std::int64_t* value);
Status read_value(const Statement& statement, int index, std::size_t* value);
Status read_value(const Statement& statement, int index, int* value);
Status read_value(const Statement& statement, int index, bool* value);

/// Binds the row's columns to parameters `first`, `first` + 1, ...; returns the next parameter.
template <typename Row>
int bind_columns(Statement& statement, const Row& row, int first = 1) {
  int index = first;
  visit_columns(row, [&](const Column&, const auto& value) { bind_value(statement, index++, value); });
  return index;
}

/// Binds the row's key columns that a file of `version` has to parameters 1, 2, ... (the order of
/// key_condition); returns the next parameter.
template <typename Row>
int bind_key_columns(Statement& statement, const Row& row, int version = kSchemaVersion) {
  int index = 1;
  visit_columns(row, [&](const Column& c, const auto& value) {
    if (c.in_key && c.since <= version) bind_value(statement, index++, value);
  });
  return index;
}

/// Reads the row's columns from result columns `first`, `first` + 1, ... of the current row. A
/// value its field cannot hold (text for a number, an integer out of its field's range) is an
/// error naming the column: "column time_ms holds text 'fast', not a number".
template <typename Row>
Status read_columns(const Statement& statement, Row* row, int first = 0) {
  int index = first;
  Status status = Status::success();
  visit_columns(*row, [&](const Column& c, auto& value) {
    Status read = read_value(statement, index++, &value);
    if (status.ok() && !read.ok()) status = read.error().prefixed(std::string("column ") + c.name + " ");
  });
  if constexpr (std::is_same_v<Row, StoredRow>) {
    // No column holds the kind: the engine column tells it, as it does for every stored row.
    Candidate& candidate = row->measurement.candidate;
    candidate.kind = kind_of_candidate(candidate.engine_id);
  }
  return status;
}

template <typename Row>
const std::vector<ColumnInfo>& columns_of() {
  static const std::vector<ColumnInfo> columns = [] {
    std::vector<ColumnInfo> out;
    const Row row{};
    visit_columns(row, [&](const Column& c, const auto& value) {
      out.push_back(ColumnInfo{c.name, sql_type(value), c.since, c.in_key});
    });
    return out;
  }();
  return columns;
}

}  // namespace ucudnn::store
