#include "store/sqlite.h"

#include <sqlite3.h>

#include <cstdio>
#include <utility>

namespace ucudnn::store {

void detail::SqliteCloser::operator()(sqlite3* db) const { sqlite3_close_v2(db); }

std::string sqlite_error(sqlite3* db, int code) {
  return std::string(db ? sqlite3_errmsg(db) : sqlite3_errstr(code)) + " (" + sqlite3_errstr(code) + ")";
}

void bound_stored_values(sqlite3* db) { sqlite3_limit(db, SQLITE_LIMIT_LENGTH, kMaxStoredValueBytes); }

bool sqlite_busy(int code) {
  const int primary = code & 0xff;
  return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

Error still_locked_error(int waited_ms) {
  char waited[32];  // three digits: "60 s" for the default, whatever part of it an open's first step used
  std::snprintf(waited, sizeof waited, "%.3g s", waited_ms / 1000.0);
  return Error{ErrorCode::kStorage,
               "another process held the database's lock for the whole wait (" + std::string(waited) +
                   "): a writer that is stopped, hung or still busy; nothing was read or written, try again once it "
                   "has finished"};
}

bool sqlite_corrupt(int code) {
  const int primary = code & 0xff;
  return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB;
}

Status sqlite_exec(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    return Error{ErrorCode::kStorage, text + " (" + sqlite3_errstr(rc) + ")"};
  }
  return Status::success();
}

std::string sqlite_uri(const std::string& path, const std::string& query) {
  static const char kHex[] = "0123456789ABCDEF";
  // "file://" + an absolute path keeps a leading "//" a path, not an authority; a relative path
  // follows "file:" directly.
  std::string uri = path.empty() || path[0] != '/' ? "file:" : "file://";
  for (const unsigned char c : path) {
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                            c == '.' || c == '_' || c == '~' || c == '/';
    if (unreserved) {
      uri += static_cast<char>(c);
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    }
  }
  if (!query.empty()) uri += "?" + query;
  return uri;
}

Expected<Statement> Statement::prepare(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* statement = nullptr;
  const int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr);
  if (rc != SQLITE_OK) return Error{ErrorCode::kStorage, sqlite_error(db, rc)};
  return Statement(statement);
}

Statement::Statement(Statement&& other) noexcept
    : statement_(std::exchange(other.statement_, nullptr)),
      bind_error_(std::exchange(other.bind_error_, SQLITE_OK)),
      bind_message_(std::move(other.bind_message_)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    if (statement_) sqlite3_finalize(statement_);
    statement_ = std::exchange(other.statement_, nullptr);
    bind_error_ = std::exchange(other.bind_error_, SQLITE_OK);
    bind_message_ = std::move(other.bind_message_);
  }
  return *this;
}

Statement::~Statement() {
  if (statement_) sqlite3_finalize(statement_);
}

void Statement::record_bind(int index, int rc) {
  if (rc == SQLITE_OK || bind_error_ != SQLITE_OK) return;
  bind_error_ = rc;
  bind_message_ = "cannot bind parameter " + std::to_string(index) + ": " +
                  sqlite3_errmsg(sqlite3_db_handle(statement_));
}

Statement& Statement::bind(int index, std::int64_t value) {
  record_bind(index, sqlite3_bind_int64(statement_, index, value));
  return *this;
}

Statement& Statement::bind(int index, double value) {
  record_bind(index, sqlite3_bind_double(statement_, index, value));
  return *this;
}

Statement& Statement::bind(int index, const std::string& value) {
  // sqlite3_bind_text64 takes the length as 64 bits: no silent truncation of a long value.
  record_bind(index, sqlite3_bind_text64(statement_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
  return *this;
}

int Statement::step() {
  if (bind_error_ != SQLITE_OK) return bind_error_;
  return sqlite3_step(statement_);
}

void Statement::reset() {
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
  bind_error_ = SQLITE_OK;
  bind_message_.clear();
}

std::string Statement::error(int code) const {
  if (bind_error_ != SQLITE_OK && code == bind_error_) {
    return bind_message_ + " (" + sqlite3_errstr(code) + ")";
  }
  return sqlite_error(sqlite3_db_handle(statement_), code);
}

std::int64_t Statement::column_int(int index) const { return sqlite3_column_int64(statement_, index); }

double Statement::column_double(int index) const { return sqlite3_column_double(statement_, index); }

int Statement::column_type(int index) const { return sqlite3_column_type(statement_, index); }

std::string Statement::column_text(int index) const {
  const unsigned char* text = sqlite3_column_text(statement_, index);
  return text ? std::string(reinterpret_cast<const char*>(text),
                            static_cast<std::size_t>(sqlite3_column_bytes(statement_, index)))
              : "";
}

std::size_t Statement::column_bytes(int index) const {
  return static_cast<std::size_t>(sqlite3_column_bytes(statement_, index));
}

Error step_error(const Statement& statement, int code) {
  if (sqlite_corrupt(code)) return Error{ErrorCode::kStorage, "the file is corrupt (" + statement.error(code) + ")"};
  if ((code & 0xff) == SQLITE_TOOBIG) {
    return Error{ErrorCode::kBadParam, "it holds a value of over " + std::to_string(kMaxStoredValueBytes) +
                                           " bytes, larger than any ucudnn writes: refused (the file was changed "
                                           "outside ucudnn; SQLITE_TOOBIG)"};
  }
  return Error{ErrorCode::kStorage, statement.error(code)};
}

}  // namespace ucudnn::store
