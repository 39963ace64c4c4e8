#pragma once
// Thin RAII over SQLite's C API: an owning connection and a move-only prepared statement with
// bound parameters (SQL is never assembled from values), and SQLite's errors as Errors. The header
// declares SQLite's types only, so that including the store does not need SQLite's header.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/expected.h"

struct sqlite3;
struct sqlite3_stmt;

namespace ucudnn::store {

namespace detail {
/// Closes with sqlite3_close_v2: statements still open keep the connection until finalised.
struct SqliteCloser {
  void operator()(sqlite3* db) const;
};
}  // namespace detail
using SqliteConnection = std::unique_ptr<sqlite3, detail::SqliteCloser>;

/// "MESSAGE (SQLITE_CODE)" for the connection's last error.
std::string sqlite_error(sqlite3* db, int code);

/// The largest text or blob a connection reads or writes (SQLITE_LIMIT_LENGTH): far above any
/// value ucudnn writes (a table line, an engine id: 64 KiB at most), and the most that a value in
/// a file changed outside ucudnn costs to refuse. A larger one fails its statement with
/// SQLITE_TOOBIG before SQLite copies it out of the file (a 133 MB engine id cost 260 MiB).
inline constexpr int kMaxStoredValueBytes = 1 << 20;

/// Sets kMaxStoredValueBytes on a new connection.
void bound_stored_values(sqlite3* db);

/// True for the result codes that mean "another connection holds a lock: try again".
bool sqlite_busy(int code);

/// The error for a lock that another connection held through the whole wait of `waited_ms`: it
/// says that nothing was done, and why waiting failed, not that the file was refused.
Error still_locked_error(int waited_ms);

/// True for the result codes that mean the file's pages do not hold what SQLite expects.
bool sqlite_corrupt(int code);

/// Runs SQL that returns no rows; the error carries SQLite's message.
Status sqlite_exec(sqlite3* db, const std::string& sql);

/// A `file:` URI that names `path` exactly, `query` (e.g. "mode=ro") appended: every byte but
/// the unreserved characters and '/' is percent-encoded, so '?', '#' and '%' in a file name stay
/// part of the name. Open it with SQLITE_OPEN_URI.
std::string sqlite_uri(const std::string& path, const std::string& query = "");

/// A prepared statement. A failed bind is kept and returned by the next step(), which then does
/// not run the statement: values are never silently dropped.
class Statement {
 public:
  static Expected<Statement> prepare(sqlite3* db, const std::string& sql);
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  /// Binds parameter `index` (1-based); a failure shows at step().
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, const std::string& value);

  /// SQLITE_ROW, SQLITE_DONE or an error code (the first failed bind's, if any).
  int step();
  /// Ready to run again with new bindings; forgets a failed bind.
  void reset();
  /// "MESSAGE (SQLITE_CODE)" for a code step() returned: the failed bind's message, else the
  /// connection's.
  std::string error(int code) const;

  std::int64_t column_int(int index) const;
  double column_double(int index) const;
  /// SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL: what the value is,
  /// whatever the column was declared (SQLite stores any value in any column).
  int column_type(int index) const;
  std::string column_text(int index) const;
  /// The size in bytes of a text or blob column, read without copying it.
  std::size_t column_bytes(int index) const;

 private:
  explicit Statement(sqlite3_stmt* statement) : statement_(statement) {}
  void record_bind(int index, int rc);
  sqlite3_stmt* statement_ = nullptr;
  int bind_error_ = 0;  ///< SQLITE_OK, or the first failed bind's code since reset()
  std::string bind_message_;
};

/// The error of a failed step(): damage is called damage, whatever statement met it.
Error step_error(const Statement& statement, int code);

}  // namespace ucudnn::store
