#include "store/columns.h"

#include <sqlite3.h>

#include <limits>

#include "core/measurement_csv.h"
#include "core/message_text.h"

namespace ucudnn::store {
namespace {

const char* type_name(SqlType type) {
  switch (type) {
    case SqlType::kText:
      return "TEXT";
    case SqlType::kReal:
      return "REAL";
    case SqlType::kInteger:
      break;
  }
  return "INTEGER";
}

// What a column added by a later version holds in older rows (ALTER TABLE needs a default).
const char* default_value(SqlType type) { return type == SqlType::kText ? "''" : "0"; }

}  // namespace

std::string ColumnInfo::declaration() const {
  return name + " " + type_name(type) + " NOT NULL" + (since > 1 ? std::string(" DEFAULT ") + default_value(type) : "");
}

std::string ColumnInfo::as_of(int version) const { return version >= since ? name : default_value(type); }

std::string column_list(const std::vector<ColumnInfo>& columns, int version) {
  std::string text;
  for (const ColumnInfo& c : columns) text += (text.empty() ? "" : ", ") + c.as_of(version);
  return text;
}

std::string key_column_list(const std::vector<ColumnInfo>& columns) {
  std::string text;
  for (const ColumnInfo& c : columns) {
    if (c.in_key) text += (text.empty() ? "" : ", ") + c.name;
  }
  return text;
}

std::vector<ColumnInfo> in_version(const std::vector<ColumnInfo>& columns, int version) {
  std::vector<ColumnInfo> present;
  for (const ColumnInfo& c : columns) {
    if (c.since <= version) present.push_back(c);
  }
  return present;
}

std::string parameters(std::size_t count) {
  std::string text;
  for (std::size_t i = 1; i <= count; ++i) text += (i == 1 ? "?" : ", ?") + std::to_string(i);
  return text;
}

std::string key_condition(const std::vector<ColumnInfo>& columns) {
  std::string text;
  int index = 1;
  for (const ColumnInfo& c : columns) {
    if (!c.in_key) continue;
    text += (index == 1 ? "" : " AND ") + c.name + " = ?" + std::to_string(index);
    ++index;
  }
  return text;
}

SqlType sql_type(const std::string&) { return SqlType::kText; }
SqlType sql_type(ConvOp) { return SqlType::kText; }
SqlType sql_type(double) { return SqlType::kReal; }
SqlType sql_type(std::int64_t) { return SqlType::kInteger; }
SqlType sql_type(std::size_t) { return SqlType::kInteger; }
SqlType sql_type(int) { return SqlType::kInteger; }
SqlType sql_type(bool) { return SqlType::kInteger; }

void bind_value(Statement& statement, int index, const std::string& value) { statement.bind(index, value); }
void bind_value(Statement& statement, int index, ConvOp value) {
  statement.bind(index, std::string(short_name(value)));
}
void bind_value(Statement& statement, int index, double value) { statement.bind(index, value); }
void bind_value(Statement& statement, int index, std::int64_t value) { statement.bind(index, value); }
void bind_value(Statement& statement, int index, std::size_t value) {
  statement.bind(index, static_cast<std::int64_t>(value));
}
void bind_value(Statement& statement, int index, int value) { statement.bind(index, std::int64_t{value}); }
void bind_value(Statement& statement, int index, bool value) { statement.bind(index, std::int64_t{value ? 1 : 0}); }

namespace {

// SQLite keeps any value in any column: a row written by another program may hold text where a
// number belongs, or a number no field can hold. Each is refused, never converted.
const char* value_kind(int type) {
  switch (type) {
    case SQLITE_INTEGER: return "an integer";
    case SQLITE_FLOAT: return "a real number";
    case SQLITE_TEXT: return "text";
    case SQLITE_BLOB: return "a blob";
    default: return "NULL";
  }
}

std::string shown(const Statement& statement, int index) {
  const int type = statement.column_type(index);
  if (type == SQLITE_TEXT) return "text '" + excerpt(statement.column_text(index)) + "'";
  if (type == SQLITE_INTEGER) return std::to_string(statement.column_int(index));
  if (type == SQLITE_FLOAT) return "the real number " + std::to_string(statement.column_double(index));
  return value_kind(type);
}

Status expect_type(const Statement& statement, int index, int type, const char* wanted) {
  const int actual = statement.column_type(index);
  if (actual == type) return Status::success();
  return Error{ErrorCode::kBadParam, std::string("holds ") + shown(statement, index) + ", not " + wanted};
}

// An integer from `low` to `high`, as an int64.
Expected<std::int64_t> integer_in(const Statement& statement, int index, std::int64_t low, std::int64_t high,
                                  const char* wanted) {
  UCUDNN_TRY(expect_type(statement, index, SQLITE_INTEGER, wanted));
  const std::int64_t value = statement.column_int(index);
  if (value < low || value > high)
    return Error{ErrorCode::kBadParam, "holds " + std::to_string(value) + ", not " + wanted};
  return value;
}

}  // namespace

Status read_value(const Statement& statement, int index, std::string* value) {
  UCUDNN_TRY(expect_type(statement, index, SQLITE_TEXT, "text"));
  // Measured before it is copied: a file may hold a text of a gigabyte in any column.
  const std::size_t bytes = statement.column_bytes(index);
  if (bytes > kMaxTableLineBytes) {
    return Error{ErrorCode::kBadParam, "holds a text of " + std::to_string(bytes) + " bytes, more than the limit of " +
                                           std::to_string(kMaxTableLineBytes) + " bytes"};
  }
  *value = statement.column_text(index);
  return Status::success();
}

Status read_value(const Statement& statement, int index, ConvOp* value) {
  UCUDNN_TRY(expect_type(statement, index, SQLITE_TEXT, "an op's name"));
  const std::string text = statement.column_text(index);
  const auto op = stored_conv_op(text);
  if (!op) {
    return Error{ErrorCode::kBadParam, "holds the op '" + excerpt(text) + "', not one ucudnn writes (" +
                                           short_name(ConvOp::kForward) + ", " + short_name(ConvOp::kBackwardData) +
                                           " or " + short_name(ConvOp::kBackwardFilter) + ", exactly)"};
  }
  *value = *op;
  return Status::success();
}

Status read_value(const Statement& statement, int index, double* value) {
  // A whole number of milliseconds is a number too (SQLite stores 2.0 as the integer 2 in a
  // column without REAL affinity).
  const int type = statement.column_type(index);
  if (type != SQLITE_FLOAT && type != SQLITE_INTEGER)
    return Error{ErrorCode::kBadParam, "holds " + shown(statement, index) + ", not a number"};
  *value = statement.column_double(index);
  return Status::success();
}

Status read_value(const Statement& statement, int index, std::int64_t* value) {
  UCUDNN_TRY_ASSIGN(*value, integer_in(statement, index, std::numeric_limits<std::int64_t>::min(),
                                       std::numeric_limits<std::int64_t>::max(), "an integer"));
  return Status::success();
}

Status read_value(const Statement& statement, int index, std::size_t* value) {
  UCUDNN_TRY_ASSIGN(const std::int64_t read, integer_in(statement, index, 0, std::numeric_limits<std::int64_t>::max(),
                                                        "a size (an integer >= 0)"));
  *value = static_cast<std::size_t>(read);
  return Status::success();
}

Status read_value(const Statement& statement, int index, int* value) {
  UCUDNN_TRY_ASSIGN(const std::int64_t read,
                    integer_in(statement, index, std::numeric_limits<int>::min(), std::numeric_limits<int>::max(),
                               "a 32-bit integer"));
  *value = static_cast<int>(read);
  return Status::success();
}

Status read_value(const Statement& statement, int index, bool* value) {
  UCUDNN_TRY_ASSIGN(const std::int64_t read, integer_in(statement, index, 0, 1, "0 or 1"));
  *value = read != 0;
  return Status::success();
}

}  // namespace ucudnn::store
