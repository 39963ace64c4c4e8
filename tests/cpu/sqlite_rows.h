#pragma once
// Reading a database file as SQLite itself sees it, not through the store under test.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

namespace ucudnn::testing {

/// How the file is opened: as any reader (kShared), or immutable, for a file nothing writes meanwhile:
/// no locks and no -wal or -shm files made (a live WAL database's newest rows would be missed).
enum class SqliteOpen { kShared, kImmutable };

/// The answer to `sql`, a row a vector, every column as text (NULL as `null_text`), rows in the order
/// the SQL asks.
inline std::vector<std::vector<std::string>> sqlite_rows(const std::string& path, const std::string& sql,
                                                         const char* null_text = "NULL",
                                                         SqliteOpen open = SqliteOpen::kShared) {
  std::vector<std::vector<std::string>> rows;
  sqlite3* db = nullptr;
  const bool immutable = open == SqliteOpen::kImmutable;
  const std::string name = immutable ? "file:" + path + "?immutable=1" : path;  // test paths: nothing to escape
  const int flags = SQLITE_OPEN_READONLY | (immutable ? SQLITE_OPEN_URI : 0);
  EXPECT_EQ(sqlite3_open_v2(name.c_str(), &db, flags, nullptr), SQLITE_OK) << path;
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db) << ": " << sql;
  while (statement && sqlite3_step(statement) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int c = 0; c < sqlite3_column_count(statement); ++c) {
      const auto* text = sqlite3_column_text(statement, c);
      row.push_back(text ? reinterpret_cast<const char*>(text) : null_text);
    }
    rows.push_back(row);
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return rows;
}

}  // namespace ucudnn::testing
