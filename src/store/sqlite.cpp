#include "store/sqlite.h"

#include <sqlite3.h>

#include <utility>

namespace ucudnn {

void SqliteCloser::operator()(sqlite3* db) const { sqlite3_close_v2(db); }

std::string sqlite_error(sqlite3* db, int code) {
  return std::string(db ? sqlite3_errmsg(db) : sqlite3_errstr(code)) + " (" + sqlite3_errstr(code) + ")";
}

bool sqlite_busy(int code) {
  const int primary = code & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

Expected<Statement> Statement::prepare(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* statement = nullptr;
  const int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr);
  if (rc != SQLITE_OK) return Error{sqlite_error(db, rc)};
  return Statement(statement);
}

Statement::Statement(Statement&& other) noexcept : statement_(std::exchange(other.statement_, nullptr)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    if (statement_) sqlite3_finalize(statement_);
    statement_ = std::exchange(other.statement_, nullptr);
  }
  return *this;
}

Statement::~Statement() {
  if (statement_) sqlite3_finalize(statement_);
}

Statement& Statement::bind(int index, std::int64_t value) {
  sqlite3_bind_int64(statement_, index, value);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  sqlite3_bind_double(statement_, index, value);
  return *this;
}

Statement& Statement::bind(int index, const std::string& value) {
  sqlite3_bind_text(statement_, index, value.c_str(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}

int Statement::step() { return sqlite3_step(statement_); }

void Statement::reset() {
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
}

std::int64_t Statement::column_int(int index) const { return sqlite3_column_int64(statement_, index); }

double Statement::column_double(int index) const { return sqlite3_column_double(statement_, index); }

std::string Statement::column_text(int index) const {
  const unsigned char* text = sqlite3_column_text(statement_, index);
  return text ? reinterpret_cast<const char*>(text) : "";
}

}  // namespace ucudnn
