#include "store/columns.h"

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

Status read_value(const Statement& statement, int index, std::string* value) {
  *value = statement.column_text(index);
  return Status::success();
}

Status read_value(const Statement& statement, int index, ConvOp* value) {
  const std::string text = statement.column_text(index);
  const auto op = parse_conv_op(text);
  if (!op) return Error{"unknown op '" + text + "' in a stored row"};
  *value = *op;
  return Status::success();
}

Status read_value(const Statement& statement, int index, double* value) {
  *value = statement.column_double(index);
  return Status::success();
}

Status read_value(const Statement& statement, int index, std::int64_t* value) {
  *value = statement.column_int(index);
  return Status::success();
}

Status read_value(const Statement& statement, int index, std::size_t* value) {
  *value = static_cast<std::size_t>(statement.column_int(index));
  return Status::success();
}

Status read_value(const Statement& statement, int index, int* value) {
  *value = static_cast<int>(statement.column_int(index));
  return Status::success();
}

Status read_value(const Statement& statement, int index, bool* value) {
  *value = statement.column_int(index) != 0;
  return Status::success();
}

}  // namespace ucudnn::store
