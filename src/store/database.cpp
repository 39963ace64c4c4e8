#include "store/database.h"

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <limits>
#include <random>
#include <set>
#include <thread>

#include "store/sqlite.h"

namespace ucudnn {
namespace {

constexpr const char* kSchema[] = {
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS measurements("
    " gpu_name TEXT NOT NULL, compute_capability INTEGER NOT NULL, sm_count INTEGER NOT NULL,"
    " cudnn_version INTEGER NOT NULL, cuda_runtime_version INTEGER NOT NULL,"
    " op TEXT NOT NULL, layer TEXT NOT NULL, micro_batch INTEGER NOT NULL,"
    " algo INTEGER NOT NULL, math_type INTEGER NOT NULL, deterministic INTEGER NOT NULL,"
    " time_ms REAL NOT NULL, workspace_bytes INTEGER NOT NULL, measured_at TEXT NOT NULL)",
    "CREATE UNIQUE INDEX IF NOT EXISTS measurements_key ON measurements(gpu_name, compute_capability,"
    " sm_count, cudnn_version, cuda_runtime_version, op, layer, micro_batch, algo, math_type)",
    "CREATE TABLE IF NOT EXISTS coverage("
    " gpu_name TEXT NOT NULL, compute_capability INTEGER NOT NULL, sm_count INTEGER NOT NULL,"
    " cudnn_version INTEGER NOT NULL, cuda_runtime_version INTEGER NOT NULL,"
    " op TEXT NOT NULL, layer TEXT NOT NULL, micro_batch INTEGER NOT NULL,"
    " measured_up_to INTEGER NOT NULL,"
    " PRIMARY KEY(gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, op, layer,"
    " micro_batch))",
};

constexpr const char* kKeyColumns =
    "gpu_name = ?1 AND compute_capability = ?2 AND sm_count = ?3 AND cudnn_version = ?4 AND "
    "cuda_runtime_version = ?5 AND op = ?6 AND layer = ?7 AND micro_batch = ?8";

constexpr std::int64_t kUnbounded = std::numeric_limits<std::int64_t>::max();

std::int64_t to_stored_bound(std::size_t bound) {
  return bound >= static_cast<std::size_t>(kUnbounded) ? kUnbounded : static_cast<std::int64_t>(bound);
}
std::size_t from_stored_bound(std::int64_t bound) {
  return bound >= kUnbounded ? std::numeric_limits<std::size_t>::max() : static_cast<std::size_t>(bound);
}

void bind_key(Statement& s, const DeviceIdentity& id, ConvOp op, const std::string& layer, int micro_batch) {
  s.bind(1, id.gpu_name)
      .bind(2, std::int64_t{id.compute_capability})
      .bind(3, std::int64_t{id.sm_count})
      .bind(4, std::int64_t{id.cudnn_version})
      .bind(5, std::int64_t{id.cuda_runtime_version})
      .bind(6, std::string(short_name(op)))
      .bind(7, layer)
      .bind(8, std::int64_t{micro_batch});
}

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool file_exists(const std::string& path, bool* is_directory) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  *is_directory = S_ISDIR(st.st_mode);
  return true;
}

bool mounted_read_only(const std::string& path) {
  struct statvfs vfs {};
  return ::statvfs(path.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY);
}

// Executes SQL without results; errors carry the message.
Expected<bool> exec(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    return Error{text + " (" + sqlite3_errstr(rc) + ")"};
  }
  return true;
}

// The schema version stored in `meta`, 0 for a file without ucudnn's tables; an error for an
// SQLite file that holds other tables, or for a file that is not SQLite at all.
Expected<int> read_schema_version(sqlite3* db) {
  auto tables = Statement::prepare(db, "SELECT name FROM sqlite_master WHERE type = 'table'");
  if (!tables) return tables.error();
  std::set<std::string> names;
  int rc;
  while ((rc = tables.value().step()) == SQLITE_ROW) names.insert(tables.value().column_text(0));
  if (rc != SQLITE_DONE) return Error{sqlite_error(db, rc)};
  if (names.empty()) return 0;
  if (!names.count("meta")) return Error{"it is an SQLite database, but not a ucudnn benchmark database"};
  auto version = Statement::prepare(db, "SELECT value FROM meta WHERE key = 'schema_version'");
  if (!version) return version.error();
  if (version.value().step() != SQLITE_ROW) return Error{"its schema version is missing"};
  const std::string text = version.value().column_text(0);
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return Error{"its schema version '" + text + "' is not a number"};
  }
  return std::stoi(text);
}

// A read-only connection. A WAL database in a directory this process cannot write has no shared
// memory file to open; then the file is opened as immutable (read-only media need no locks).
Expected<SqliteConnection> open_read_only(const std::string& path, int busy_timeout_ms) {
  for (const bool immutable : {false, true}) {
    char* uri = sqlite3_mprintf(immutable ? "file:%q?mode=ro&immutable=1" : "file:%q?mode=ro", path.c_str());
    sqlite3* raw = nullptr;
    int rc = sqlite3_open_v2(uri, &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_FULLMUTEX, nullptr);
    sqlite3_free(uri);
    SqliteConnection connection(raw);
    if (rc != SQLITE_OK) return Error{"cannot open: " + sqlite_error(raw, rc)};
    sqlite3_busy_timeout(raw, busy_timeout_ms);
    sqlite3_extended_result_codes(raw, 1);
    rc = sqlite3_exec(raw, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
    const int primary = rc & 0xff;
    if (!immutable && (primary == SQLITE_READONLY || primary == SQLITE_CANTOPEN)) continue;
    return connection;  // other failures show in the schema checks that follow
  }
  return Error{"cannot open read-only"};
}

}  // namespace

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

JournalMode journal_mode_for(const std::string& path) {
  struct statfs fs {};
  if (::statfs(directory_of(path).c_str(), &fs) != 0) return JournalMode::kDelete;  // unknown: the safe choice
  switch (static_cast<unsigned long>(fs.f_type)) {
    case 0x6969UL:      // NFS
    case 0xFF534D42UL:  // CIFS
    case 0xFE534D42UL:  // SMB2
    case 0x517BUL:      // SMB
    case 0x0BD00BD0UL:  // Lustre
    case 0x47504653UL:  // GPFS
    case 0x00C36400UL:  // CephFS
    case 0x01021997UL:  // 9P
    case 0x65735546UL:  // FUSE (sshfs, many cluster file systems)
    case 0x013111A8UL:  // IBRIX
    case 0x5346414FUL:  // AFS
      return JournalMode::kDelete;
    default:
      return JournalMode::kWal;
  }
}

BenchmarkDatabase::~BenchmarkDatabase() {
  if (db_) sqlite3_close_v2(db_);
}

Expected<std::unique_ptr<BenchmarkDatabase>> BenchmarkDatabase::open(const std::string& path, const Options& options) {
  const std::string where = "benchmark database '" + path + "': ";
  bool is_directory = false;
  const bool exists = file_exists(path, &is_directory);
  if (exists && is_directory) return Error{where + "is a directory"};
  if (!exists && !options.create) return Error{where + "does not exist"};

  // Look at an existing file through a read-only connection first: nothing is written to a file
  // that turns out not to be ours, to be corrupt, or to come from a newer ucudnn.
  if (exists) {
    auto probe = open_read_only(path, options.busy_timeout_ms);
    if (!probe) return probe.error().prefixed(where);
    sqlite3* raw = probe.value().get();
    int rc = SQLITE_OK;
    auto version = read_schema_version(raw);
    if (!version) return version.error().prefixed(where + "refused and left untouched: ");
    // Damage past the first page shows only when every page is read.
    auto check = Statement::prepare(raw, "PRAGMA quick_check(1)");
    if (!check) return check.error().prefixed(where + "refused and left untouched: ");
    rc = check.value().step();
    if (rc != SQLITE_ROW || check.value().column_text(0) != "ok") {
      const std::string detail = rc == SQLITE_ROW ? check.value().column_text(0) : sqlite_error(raw, rc);
      return Error{where + "refused and left untouched: the file is corrupt (" + detail + ")"};
    }
    if (*version > kSchemaVersion) {
      return Error{where + "refused and left untouched: its schema version " + std::to_string(*version) +
                   " is newer than this ucudnn's " + std::to_string(kSchemaVersion) + "; use a newer ucudnn"};
    }
  }

  std::unique_ptr<BenchmarkDatabase> database(new BenchmarkDatabase());
  database->path_ = path;
  database->busy_timeout_ms_ = options.busy_timeout_ms;
  const std::string dir = directory_of(path);
  const bool writable = !options.read_only && !mounted_read_only(dir) && ::access(dir.c_str(), W_OK) == 0 &&
                        (!exists || ::access(path.c_str(), W_OK) == 0);
  if (!exists && !writable) return Error{where + "does not exist and its directory is not writable"};
  database->read_only_ = !writable;

  if (writable) {
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                                   nullptr);
    database->db_ = raw;
    if (rc != SQLITE_OK) return Error{where + "cannot open: " + sqlite_error(raw, rc)};
    sqlite3_busy_timeout(raw, options.busy_timeout_ms);
    sqlite3_extended_result_codes(raw, 1);
  } else {
    auto connection = open_read_only(path, options.busy_timeout_ms);
    if (!connection) return connection.error().prefixed(where);
    database->db_ = connection.value().release();
  }
  sqlite3* raw = database->db_;

  if (writable) {
    const JournalMode wanted = options.journal == JournalMode::kAuto ? journal_mode_for(path) : options.journal;
    static const char* kNames[] = {"", "wal", "delete", "truncate", "persist"};
    // Switching needs a moment of exclusive access; a busy database keeps the mode it has, so
    // read back what SQLite actually uses.
    {
      auto pragma = Statement::prepare(raw, std::string("PRAGMA journal_mode=") + kNames[static_cast<int>(wanted)]);
      if (pragma && pragma.value().step() == SQLITE_ROW) {
        const std::string actual = pragma.value().column_text(0);
        for (int i = 1; i < 5; ++i) {
          if (actual == kNames[i]) database->journal_ = static_cast<JournalMode>(i);
        }
      }
    }  // finalised here: an unfinished statement would hold a lock on the file
    (void)exec(raw, database->journal_ == JournalMode::kWal ? "PRAGMA synchronous=NORMAL" : "PRAGMA synchronous=FULL");
    auto initialised = database->initialise_schema();
    if (!initialised) return initialised.error().prefixed(where);
  }
  return database;
}

Expected<bool> BenchmarkDatabase::initialise_schema() {
  return transaction(true, [&]() -> Expected<bool> {
    auto version = read_schema_version(db_);
    if (!version) return version.error();
    if (*version > kSchemaVersion) return Error{"its schema version is newer than this ucudnn's"};
    // Migrations, one version at a time. Version 0 is an empty file.
    if (*version < 1) {
      for (const char* sql : kSchema) {
        auto ok = exec(db_, sql);
        if (!ok) return ok;
      }
    }
    auto set = Statement::prepare(db_, "INSERT INTO meta(key, value) VALUES('schema_version', ?1) "
                                       "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
    if (!set) return set.error();
    set.value().bind(1, std::to_string(kSchemaVersion));
    const int rc = set.value().step();
    if (rc != SQLITE_DONE) return Error{sqlite_error(db_, rc)};
    return true;
  });
}

Expected<bool> BenchmarkDatabase::transaction(bool write, const std::function<Expected<bool>()>& body) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::mt19937 rng(std::random_device{}());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms_);
  int backoff_ms = 2;
  while (true) {
    auto begun = exec(db_, write ? "BEGIN IMMEDIATE" : "BEGIN");
    std::string failure;
    int code = SQLITE_OK;
    if (begun) {
      auto result = body();
      if (result) {
        auto committed = exec(db_, "COMMIT");
        if (committed) return result;
        failure = committed.message();
      } else {
        failure = result.message();
      }
      code = sqlite3_extended_errcode(db_);  // before ROLLBACK replaces it
      if (!sqlite3_get_autocommit(db_)) (void)exec(db_, "ROLLBACK");
    } else {
      failure = begun.message();
      code = sqlite3_extended_errcode(db_);
    }
    // Retry only lock contention, with exponential backoff and jitter; give up at the deadline.
    // A statement left running is a bug here, not contention: fail at once.
    if (sqlite3_next_stmt(db_, nullptr) != nullptr) return Error{failure + " (a statement is still running)"};
    if (!sqlite_busy(code) || std::chrono::steady_clock::now() >= deadline) {
      return Error{failure};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(1, backoff_ms)(rng)));
    backoff_ms = std::min(backoff_ms * 2, 200);
  }
}

Expected<std::optional<BenchmarkDatabase::Lookup>> BenchmarkDatabase::lookup(const DeviceIdentity& identity,
                                                                              const ConvKey& micro_key) {
  std::optional<Lookup> found;
  const std::string layer = micro_key.layer_signature();
  auto done = transaction(false, [&]() -> Expected<bool> {
    found.reset();
    // A read-only file without ucudnn's tables (an empty file) simply has nothing.
    auto version = read_schema_version(db_);
    if (!version) return version.error();
    if (*version == 0) return true;
    auto coverage = Statement::prepare(db_, std::string("SELECT measured_up_to FROM coverage WHERE ") + kKeyColumns);
    if (!coverage) return coverage.error();
    bind_key(coverage.value(), identity, micro_key.op, layer, micro_key.batch());
    int rc = coverage.value().step();
    if (rc == SQLITE_DONE) return true;
    if (rc != SQLITE_ROW) return Error{sqlite_error(db_, rc)};
    Lookup result;
    result.measured_up_to = from_stored_bound(coverage.value().column_int(0));
    auto rows = Statement::prepare(db_, std::string("SELECT algo, math_type, deterministic, time_ms, workspace_bytes "
                                                    "FROM measurements WHERE ") +
                                            kKeyColumns);
    if (!rows) return rows.error();
    bind_key(rows.value(), identity, micro_key.op, layer, micro_key.batch());
    while ((rc = rows.value().step()) == SQLITE_ROW) {
      Measurement m;
      m.micro_batch = micro_key.batch();
      m.algo = static_cast<int>(rows.value().column_int(0));
      m.math_type = static_cast<int>(rows.value().column_int(1));
      m.deterministic = rows.value().column_int(2) != 0;
      m.time_ms = rows.value().column_double(3);
      m.workspace_bytes = static_cast<std::size_t>(rows.value().column_int(4));
      result.rows.push_back(m);
    }
    if (rc != SQLITE_DONE) return Error{sqlite_error(db_, rc)};
    found = std::move(result);
    return true;
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': lookup failed: ");
  return found;
}

namespace {

Expected<bool> insert_row(sqlite3* db, Statement& insert, const StoredRow& row, long long* inserted) {
  insert.reset();
  bind_key(insert, row.identity, row.op, row.layer, row.measurement.micro_batch);
  insert.bind(9, std::int64_t{row.measurement.algo})
      .bind(10, std::int64_t{row.measurement.math_type})
      .bind(11, std::int64_t{row.measurement.deterministic ? 1 : 0})
      .bind(12, row.measurement.time_ms)
      .bind(13, static_cast<std::int64_t>(row.measurement.workspace_bytes))
      .bind(14, row.measured_at);
  const int rc = insert.step();
  if (rc != SQLITE_DONE) return Error{sqlite_error(db, rc)};
  *inserted += sqlite3_changes(db);
  return true;
}

Expected<bool> raise_coverage(sqlite3* db, Statement& upsert, const DeviceIdentity& id, ConvOp op,
                              const std::string& layer, int micro_batch, std::size_t bound) {
  upsert.reset();
  bind_key(upsert, id, op, layer, micro_batch);
  upsert.bind(9, to_stored_bound(bound));
  const int rc = upsert.step();
  if (rc != SQLITE_DONE) return Error{sqlite_error(db, rc)};
  return true;
}

constexpr const char* kInsertRow =
    "INSERT INTO measurements(gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, op, "
    "layer, micro_batch, algo, math_type, deterministic, time_ms, workspace_bytes, measured_at) "
    "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) ON CONFLICT DO NOTHING";
constexpr const char* kRaiseCoverage =
    "INSERT INTO coverage(gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, op, layer, "
    "micro_batch, measured_up_to) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
    "ON CONFLICT DO UPDATE SET measured_up_to = max(measured_up_to, excluded.measured_up_to)";

}  // namespace

Expected<long long> BenchmarkDatabase::store_rows(const std::vector<StoredRow>& rows, std::size_t measured_up_to) {
  if (read_only_) return Error{"benchmark database '" + path_ + "' is read-only"};
  long long inserted = 0;
  auto done = transaction(true, [&]() -> Expected<bool> {
    inserted = 0;
    auto insert = Statement::prepare(db_, kInsertRow);
    if (!insert) return insert.error();
    auto upsert = Statement::prepare(db_, kRaiseCoverage);
    if (!upsert) return upsert.error();
    for (const StoredRow& row : rows) {
      auto ok = insert_row(db_, insert.value(), row, &inserted);
      if (!ok) return ok;
      ok = raise_coverage(db_, upsert.value(), row.identity, row.op, row.layer, row.measurement.micro_batch,
                          measured_up_to);
      if (!ok) return ok;
    }
    return true;
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': store failed: ");
  return inserted;
}

Expected<bool> BenchmarkDatabase::store(const DeviceIdentity& identity, const ConvKey& micro_key,
                                        std::size_t measured_up_to, const std::vector<Measurement>& rows) {
  if (read_only_) return Error{"benchmark database '" + path_ + "' is read-only"};
  const std::string layer = micro_key.layer_signature();
  const std::string now = utc_timestamp();
  auto done = transaction(true, [&]() -> Expected<bool> {
    long long inserted = 0;
    auto insert = Statement::prepare(db_, kInsertRow);
    if (!insert) return insert.error();
    for (const Measurement& m : rows) {
      auto ok = insert_row(db_, insert.value(), StoredRow{identity, micro_key.op, layer, m, now}, &inserted);
      if (!ok) return ok;
    }
    auto upsert = Statement::prepare(db_, kRaiseCoverage);
    if (!upsert) return upsert.error();
    return raise_coverage(db_, upsert.value(), identity, micro_key.op, layer, micro_key.batch(), measured_up_to);
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': store failed: ");
  return true;
}

Expected<std::vector<StoredRow>> BenchmarkDatabase::all_rows() {
  std::vector<StoredRow> rows;
  auto done = transaction(false, [&]() -> Expected<bool> {
    rows.clear();
    auto version = read_schema_version(db_);
    if (!version) return version.error();
    if (*version == 0) return true;
    auto select = Statement::prepare(
        db_, "SELECT gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, op, layer, "
             "micro_batch, algo, math_type, deterministic, time_ms, workspace_bytes, measured_at FROM measurements "
             "ORDER BY gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, layer, op, "
             "micro_batch, algo, math_type");
    if (!select) return select.error();
    Statement& s = select.value();
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) {
      StoredRow row;
      row.identity = DeviceIdentity{s.column_text(0), static_cast<int>(s.column_int(1)),
                                    static_cast<int>(s.column_int(2)), static_cast<int>(s.column_int(3)),
                                    static_cast<int>(s.column_int(4))};
      const auto op = parse_conv_op(s.column_text(5));
      if (!op) return Error{"unknown op '" + s.column_text(5) + "' in a stored row"};
      row.op = *op;
      row.layer = s.column_text(6);
      row.measurement.micro_batch = static_cast<int>(s.column_int(7));
      row.measurement.algo = static_cast<int>(s.column_int(8));
      row.measurement.math_type = static_cast<int>(s.column_int(9));
      row.measurement.deterministic = s.column_int(10) != 0;
      row.measurement.time_ms = s.column_double(11);
      row.measurement.workspace_bytes = static_cast<std::size_t>(s.column_int(12));
      row.measured_at = s.column_text(13);
      rows.push_back(std::move(row));
    }
    if (rc != SQLITE_DONE) return Error{sqlite_error(db_, rc)};
    return true;
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': ");
  return rows;
}

Expected<DatabaseStats> BenchmarkDatabase::stats() {
  DatabaseStats stats;
  auto done = transaction(false, [&]() -> Expected<bool> {
    stats = DatabaseStats{};
    auto version = read_schema_version(db_);
    if (!version) return version.error();
    if (*version == 0) return true;
    auto count = Statement::prepare(
        db_, "SELECT count(*), (SELECT count(*) FROM (SELECT DISTINCT op, layer FROM measurements)) FROM measurements");
    if (!count) return count.error();
    if (count.value().step() != SQLITE_ROW) return Error{sqlite_error(db_, sqlite3_errcode(db_))};
    stats.rows = count.value().column_int(0);
    stats.kernels = count.value().column_int(1);
    auto gpus = Statement::prepare(db_, "SELECT DISTINCT gpu_name FROM measurements ORDER BY gpu_name");
    if (!gpus) return gpus.error();
    while (gpus.value().step() == SQLITE_ROW) stats.gpus.push_back(gpus.value().column_text(0));
    auto versions = Statement::prepare(db_, "SELECT DISTINCT cudnn_version FROM measurements ORDER BY 1");
    if (!versions) return versions.error();
    while (versions.value().step() == SQLITE_ROW) {
      stats.cudnn_versions.push_back(static_cast<int>(versions.value().column_int(0)));
    }
    return true;
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': ");
  return stats;
}

Expected<bool> BenchmarkDatabase::verify() {
  std::string problem;
  auto done = transaction(false, [&]() -> Expected<bool> {
    auto check = Statement::prepare(db_, "PRAGMA integrity_check");
    if (!check) return check.error();
    while (check.value().step() == SQLITE_ROW) {
      const std::string line = check.value().column_text(0);
      if (line != "ok") problem += (problem.empty() ? "" : "; ") + line;
    }
    auto version = read_schema_version(db_);
    if (!version) return version.error();
    if (*version != kSchemaVersion && problem.empty()) {
      problem = "schema version " + std::to_string(*version) + ", expected " + std::to_string(kSchemaVersion);
    }
    return true;
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': ");
  if (!problem.empty()) return Error{"benchmark database '" + path_ + "' failed verification: " + problem};
  return true;
}

}  // namespace ucudnn
