#pragma once
// What the `ucudnn db` subcommands share: their options, how they open the database, and each one's runner.

#include <iosfwd>
#include <memory>
#include <string>

#include <CLI/App.hpp>

#include "core/expected.h"
#include "store/database.h"

namespace ucudnn::tools::db_subcommands {
using ucudnn::store::BenchmarkDatabase;
using ucudnn::store::StoredRow;

/// The options of every db subcommand, which CLI11 parses into one object.
struct DbOptions {
  std::string database;
  // import
  std::string table;             ///< --measurements
  std::string positional_table;  ///< the older spelling `db import FILE`, still accepted
  std::string network;
  std::string gpu_name;
  int compute_capability = 0;
  int sm_count = 0;
  int cudnn_version = 0;
  int cuda_version = 0;
  std::string measured_up_to;  ///< empty: complete for any workspace limit
  // export
  bool csv = false;    ///< accepted and ignored: CSV is the only format
  std::string output;  ///< --output or --measurements
  /// The identity options given to export: which of them select rows.
  const CLI::Option* gpu_name_given = nullptr;
  const CLI::Option* compute_capability_given = nullptr;
  const CLI::Option* sm_count_given = nullptr;
  const CLI::Option* cudnn_version_given = nullptr;
  const CLI::Option* cuda_version_given = nullptr;
  // stats
  bool json = false;
  // merge
  std::string from;                ///< --from: read-only
  std::string into;                ///< --into: must exist unless --create
  bool create = false;             ///< --create
  std::string journal = "delete";  ///< --journal: the target's journal mode
};

/// Where and how to open the database.
struct DatabaseTarget {
  std::string path;
  BenchmarkDatabase::Options options;
};

/// The --database option, else UCUDNN_DATABASE (neither is a usage error); the journal mode of
/// UCUDNN_DATABASE_JOURNAL, as the library uses it, so that both treat a shared file alike.
/// Looking (not importing) opens read-only and never creates a file.
Expected<DatabaseTarget> database_target(const DbOptions& options, bool looking);

/// The database `target` names, opened as it says.
Expected<std::unique_ptr<BenchmarkDatabase>> open_database(const DatabaseTarget& target);

/// `db import`: stores the table in the database (db_import.cpp).
int run_import(DbOptions options, std::ostream& out, std::ostream& err);

/// `db export`: writes one device's rows as a benchmark table (db_export.cpp).
int run_export(const DbOptions& options, BenchmarkDatabase& database, std::ostream& out, std::ostream& err);

/// `db merge`: copies every row and coverage bound of one database into another (db_merge.cpp).
int run_merge(const DbOptions& options, std::ostream& out, std::ostream& err);

/// `db stats` and `db verify` (db_inspect.cpp).
int run_stats(const DbOptions& options, BenchmarkDatabase& database, std::ostream& out, std::ostream& err);
int run_verify(const DbOptions& options, BenchmarkDatabase& database, std::ostream& out, std::ostream& err);

// Where export may write its table (db_export_output.cpp; tools/table_output.h writes it).

/// Refuses an output that is the database or one of SQLite's files beside it: by inode (a link
/// or another spelling of the path is the same file), and by name for side files that do not
/// exist yet (SQLite would take a file of that name for a journal and discard it).
Status check_output(const std::string& output, const std::string& database);

}  // namespace ucudnn::tools::db_subcommands
