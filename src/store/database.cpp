#include "store/database.h"

#include <sqlite3.h>
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
Status exec(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    return Error{text + " (" + sqlite3_errstr(rc) + ")"};
  }
  return Status::success();
}

// The schema version stored in `meta`, 0 for a file without ucudnn's tables; an error for an
// SQLite file that holds other tables, or for a file that is not SQLite at all.
Expected<int> read_schema_version(sqlite3* db) {
  UCUDNN_TRY_ASSIGN(Statement tables, Statement::prepare(db, "SELECT name FROM sqlite_master WHERE type = 'table'"));
  std::set<std::string> names;
  int rc;
  while ((rc = tables.step()) == SQLITE_ROW) names.insert(tables.column_text(0));
  if (rc != SQLITE_DONE) return Error{sqlite_error(db, rc)};
  if (names.empty()) return 0;
  if (!names.count("meta")) return Error{"it is an SQLite database, but not a ucudnn benchmark database"};
  UCUDNN_TRY_ASSIGN(Statement version, Statement::prepare(db, "SELECT value FROM meta WHERE key = 'schema_version'"));
  if (version.step() != SQLITE_ROW) return Error{"its schema version is missing"};
  const std::string text = version.column_text(0);
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

// A read-write connection, creating the file if missing.
Expected<SqliteConnection> open_read_write(const std::string& path, int busy_timeout_ms) {
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  SqliteConnection connection(raw);  // closed on failure too
  if (rc != SQLITE_OK) return Error{"cannot open: " + sqlite_error(raw, rc)};
  sqlite3_busy_timeout(raw, busy_timeout_ms);
  sqlite3_extended_result_codes(raw, 1);
  return connection;
}

// Looks at an existing file through a read-only connection: nothing is written to a file that
// turns out not to be ours, to be corrupt, or to come from a newer ucudnn.
Status probe_existing(const std::string& path, int busy_timeout_ms) {
  UCUDNN_TRY_ASSIGN(const SqliteConnection probe, open_read_only(path, busy_timeout_ms));
  const std::string refused = "refused and left untouched: ";
  auto version = read_schema_version(probe.get());
  if (!version) return version.error().prefixed(refused);
  // Damage past the first page shows only when every page is read.
  auto check = Statement::prepare(probe.get(), "PRAGMA quick_check(1)");
  if (!check) return check.error().prefixed(refused);
  const int rc = check.value().step();
  if (rc != SQLITE_ROW || check.value().column_text(0) != "ok") {
    const std::string detail = rc == SQLITE_ROW ? check.value().column_text(0) : sqlite_error(probe.get(), rc);
    return Error{refused + "the file is corrupt (" + detail + ")"};
  }
  if (*version > kSchemaVersion) {
    return Error{refused + "its schema version " + std::to_string(*version) + " is newer than this ucudnn's " +
                 std::to_string(kSchemaVersion) + "; use a newer ucudnn"};
  }
  return Status::success();
}

// Whether this process may (and is asked to) write the file, or create it in its directory.
bool may_write(const std::string& path, bool exists, bool read_only) {
  const std::string dir = directory_of(path);
  return !read_only && !mounted_read_only(dir) && ::access(dir.c_str(), W_OK) == 0 &&
         (!exists || ::access(path.c_str(), W_OK) == 0);
}

// Asks for `wanted` and returns the mode SQLite actually uses: switching needs a moment of
// exclusive access, and a busy database keeps the mode it has.
JournalMode switch_journal_mode(sqlite3* db, JournalMode wanted) {
  static const char* kNames[] = {"", "wal", "delete", "truncate", "persist"};
  JournalMode actual = JournalMode::kDelete;
  auto pragma = Statement::prepare(db, std::string("PRAGMA journal_mode=") + kNames[static_cast<int>(wanted)]);
  if (pragma && pragma.value().step() == SQLITE_ROW) {
    const std::string name = pragma.value().column_text(0);
    for (int i = 1; i < 5; ++i) {
      if (name == kNames[i]) actual = static_cast<JournalMode>(i);
    }
  }
  return actual;  // the statement is finalised here: an unfinished one would hold a lock on the file
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

BenchmarkDatabase::~BenchmarkDatabase() = default;

Expected<std::unique_ptr<BenchmarkDatabase>> BenchmarkDatabase::open(const std::string& path, const Options& options) {
  const std::string where = "benchmark database '" + path + "': ";
  bool is_directory = false;
  const bool exists = file_exists(path, &is_directory);
  if (exists && is_directory) return Error{where + "is a directory"};
  if (!exists && !options.create) return Error{where + "does not exist"};
  if (exists) {
    auto probed = probe_existing(path, options.busy_timeout_ms);
    if (!probed) return probed.error().prefixed(where);
  }
  const bool writable = may_write(path, exists, options.read_only);
  if (!exists && !writable) return Error{where + "does not exist and its directory is not writable"};

  std::unique_ptr<BenchmarkDatabase> database(new BenchmarkDatabase());
  database->path_ = path;
  database->busy_timeout_ms_ = options.busy_timeout_ms;
  database->read_only_ = !writable;
  auto connection = writable ? open_read_write(path, options.busy_timeout_ms)
                             : open_read_only(path, options.busy_timeout_ms);
  if (!connection) return connection.error().prefixed(where);
  database->db_ = std::move(connection).value();
  if (writable) {
    auto prepared = database->prepare_for_writing(options.journal);
    if (!prepared) return prepared.error().prefixed(where);
  }
  return database;
}

Status BenchmarkDatabase::prepare_for_writing(JournalMode requested) {
  journal_ = switch_journal_mode(db_.get(), requested == JournalMode::kAuto ? journal_mode_for(path_) : requested);
  (void)exec(db_.get(), journal_ == JournalMode::kWal ? "PRAGMA synchronous=NORMAL" : "PRAGMA synchronous=FULL");
  return initialise_schema();
}

Status BenchmarkDatabase::initialise_schema() {
  return transaction(true, [&]() -> Status {
    UCUDNN_TRY_ASSIGN(const int version, read_schema_version(db_.get()));
    if (version > kSchemaVersion) return Error{"its schema version is newer than this ucudnn's"};
    // Migrations, one version at a time. Version 0 is an empty file.
    if (version < 1) {
      for (const char* sql : kSchema) UCUDNN_TRY(exec(db_.get(), sql));
    }
    UCUDNN_TRY_ASSIGN(Statement set, Statement::prepare(db_.get(), "INSERT INTO meta(key, value) VALUES('schema_version', ?1) "
                                                                  "ON CONFLICT(key) DO UPDATE SET value = excluded.value"));
    set.bind(1, std::to_string(kSchemaVersion));
    const int rc = set.step();
    if (rc != SQLITE_DONE) return Error{sqlite_error(db_.get(), rc)};
    return Status::success();
  });
}

Status BenchmarkDatabase::transaction(bool write, const std::function<Status()>& body) {
  std::lock_guard<std::mutex> lock(mutex_);
  sqlite3* db = db_.get();
  std::mt19937 rng(std::random_device{}());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms_);
  int backoff_ms = 2;
  while (true) {
    auto begun = exec(db, write ? "BEGIN IMMEDIATE" : "BEGIN");
    std::string failure;
    int code = SQLITE_OK;
    if (begun) {
      auto result = body();
      if (result) {
        auto committed = exec(db, "COMMIT");
        if (committed) return Status::success();
        failure = committed.message();
      } else {
        failure = result.message();
      }
      code = sqlite3_extended_errcode(db);  // before ROLLBACK replaces it
      if (!sqlite3_get_autocommit(db)) (void)exec(db, "ROLLBACK");
    } else {
      failure = begun.message();
      code = sqlite3_extended_errcode(db);
    }
    // Retry only lock contention, with exponential backoff and jitter; give up at the deadline.
    // A statement left running is a bug here, not contention: fail at once.
    if (sqlite3_next_stmt(db, nullptr) != nullptr) return Error{failure + " (a statement is still running)"};
    if (!sqlite_busy(code) || std::chrono::steady_clock::now() >= deadline) {
      return Error{failure};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(1, backoff_ms)(rng)));
    backoff_ms = std::min(backoff_ms * 2, 200);
  }
}

namespace {

Measurement measurement_of(const Statement& rows, int micro_batch) {
  Measurement m;
  m.micro_batch = micro_batch;
  m.algo = static_cast<int>(rows.column_int(0));
  m.math_type = static_cast<int>(rows.column_int(1));
  m.deterministic = rows.column_int(2) != 0;
  m.time_ms = rows.column_double(3);
  m.workspace_bytes = static_cast<std::size_t>(rows.column_int(4));
  return m;
}

}  // namespace

Expected<std::optional<BenchmarkDatabase::Lookup>> BenchmarkDatabase::lookup(const DeviceIdentity& identity,
                                                                              const ConvKey& micro_key) {
  std::optional<Lookup> found;
  const std::string layer = micro_key.layer_signature();
  auto done = transaction(false, [&]() -> Status {
    found.reset();
    sqlite3* db = db_.get();
    // A read-only file without ucudnn's tables (an empty file) simply has nothing.
    UCUDNN_TRY_ASSIGN(const int version, read_schema_version(db));
    if (version == 0) return Status::success();
    UCUDNN_TRY_ASSIGN(Statement coverage,
                      Statement::prepare(db, std::string("SELECT measured_up_to FROM coverage WHERE ") + kKeyColumns));
    bind_key(coverage, identity, micro_key.op, layer, micro_key.batch());
    int rc = coverage.step();
    if (rc == SQLITE_DONE) return Status::success();
    if (rc != SQLITE_ROW) return Error{sqlite_error(db, rc)};
    Lookup result;
    result.measured_up_to = from_stored_bound(coverage.column_int(0));
    UCUDNN_TRY_ASSIGN(Statement rows, Statement::prepare(db, std::string("SELECT algo, math_type, deterministic, "
                                                                         "time_ms, workspace_bytes "
                                                                         "FROM measurements WHERE ") +
                                                                 kKeyColumns));
    bind_key(rows, identity, micro_key.op, layer, micro_key.batch());
    while ((rc = rows.step()) == SQLITE_ROW) result.rows.push_back(measurement_of(rows, micro_key.batch()));
    if (rc != SQLITE_DONE) return Error{sqlite_error(db, rc)};
    found = std::move(result);
    return Status::success();
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': lookup failed: ");
  return found;
}

namespace {

Status insert_row(sqlite3* db, Statement& insert, const StoredRow& row, long long* inserted) {
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
  return Status::success();
}

Status raise_coverage(sqlite3* db, Statement& upsert, const DeviceIdentity& id, ConvOp op, const std::string& layer,
                      int micro_batch, std::size_t bound) {
  upsert.reset();
  bind_key(upsert, id, op, layer, micro_batch);
  upsert.bind(9, to_stored_bound(bound));
  const int rc = upsert.step();
  if (rc != SQLITE_DONE) return Error{sqlite_error(db, rc)};
  return Status::success();
}

constexpr const char* kInsertRow =
    "INSERT INTO measurements(gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, op, "
    "layer, micro_batch, algo, math_type, deterministic, time_ms, workspace_bytes, measured_at) "
    "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) ON CONFLICT DO NOTHING";
constexpr const char* kRaiseCoverage =
    "INSERT INTO coverage(gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, op, layer, "
    "micro_batch, measured_up_to) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
    "ON CONFLICT DO UPDATE SET measured_up_to = max(measured_up_to, excluded.measured_up_to)";

StoredRow stored_row_of(const Statement& s, ConvOp op) {
  StoredRow row;
  row.identity = DeviceIdentity{s.column_text(0), static_cast<int>(s.column_int(1)), static_cast<int>(s.column_int(2)),
                                static_cast<int>(s.column_int(3)), static_cast<int>(s.column_int(4))};
  row.op = op;
  row.layer = s.column_text(6);
  row.measurement.micro_batch = static_cast<int>(s.column_int(7));
  row.measurement.algo = static_cast<int>(s.column_int(8));
  row.measurement.math_type = static_cast<int>(s.column_int(9));
  row.measurement.deterministic = s.column_int(10) != 0;
  row.measurement.time_ms = s.column_double(11);
  row.measurement.workspace_bytes = static_cast<std::size_t>(s.column_int(12));
  row.measured_at = s.column_text(13);
  return row;
}

}  // namespace

Expected<long long> BenchmarkDatabase::store_rows(const std::vector<StoredRow>& rows, std::size_t measured_up_to) {
  if (read_only_) return Error{"benchmark database '" + path_ + "' is read-only"};
  long long inserted = 0;
  auto done = transaction(true, [&]() -> Status {
    inserted = 0;
    sqlite3* db = db_.get();
    UCUDNN_TRY_ASSIGN(Statement insert, Statement::prepare(db, kInsertRow));
    UCUDNN_TRY_ASSIGN(Statement upsert, Statement::prepare(db, kRaiseCoverage));
    for (const StoredRow& row : rows) {
      UCUDNN_TRY(insert_row(db, insert, row, &inserted));
      UCUDNN_TRY(raise_coverage(db, upsert, row.identity, row.op, row.layer, row.measurement.micro_batch,
                                measured_up_to));
    }
    return Status::success();
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': store failed: ");
  return inserted;
}

Status BenchmarkDatabase::store(const DeviceIdentity& identity, const ConvKey& micro_key, std::size_t measured_up_to,
                                const std::vector<Measurement>& rows) {
  if (read_only_) return Error{"benchmark database '" + path_ + "' is read-only"};
  const std::string layer = micro_key.layer_signature();
  const std::string now = utc_timestamp();
  auto done = transaction(true, [&]() -> Status {
    sqlite3* db = db_.get();
    long long inserted = 0;
    UCUDNN_TRY_ASSIGN(Statement insert, Statement::prepare(db, kInsertRow));
    for (const Measurement& m : rows) {
      UCUDNN_TRY(insert_row(db, insert, StoredRow{identity, micro_key.op, layer, m, now}, &inserted));
    }
    UCUDNN_TRY_ASSIGN(Statement upsert, Statement::prepare(db, kRaiseCoverage));
    return raise_coverage(db, upsert, identity, micro_key.op, layer, micro_key.batch(), measured_up_to);
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': store failed: ");
  return Status::success();
}

Expected<std::vector<StoredRow>> BenchmarkDatabase::all_rows() {
  std::vector<StoredRow> rows;
  auto done = transaction(false, [&]() -> Status {
    rows.clear();
    sqlite3* db = db_.get();
    UCUDNN_TRY_ASSIGN(const int version, read_schema_version(db));
    if (version == 0) return Status::success();
    UCUDNN_TRY_ASSIGN(
        Statement select,
        Statement::prepare(
            db, "SELECT gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, op, layer, "
                "micro_batch, algo, math_type, deterministic, time_ms, workspace_bytes, measured_at FROM measurements "
                "ORDER BY gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, layer, op, "
                "micro_batch, algo, math_type"));
    int rc;
    while ((rc = select.step()) == SQLITE_ROW) {
      const auto op = parse_conv_op(select.column_text(5));
      if (!op) return Error{"unknown op '" + select.column_text(5) + "' in a stored row"};
      rows.push_back(stored_row_of(select, *op));
    }
    if (rc != SQLITE_DONE) return Error{sqlite_error(db, rc)};
    return Status::success();
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': ");
  return rows;
}

Expected<DatabaseStats> BenchmarkDatabase::stats() {
  DatabaseStats stats;
  auto done = transaction(false, [&]() -> Status {
    stats = DatabaseStats{};
    sqlite3* db = db_.get();
    UCUDNN_TRY_ASSIGN(const int version, read_schema_version(db));
    if (version == 0) return Status::success();
    UCUDNN_TRY_ASSIGN(Statement count, Statement::prepare(db, "SELECT count(*), (SELECT count(*) FROM (SELECT "
                                                              "DISTINCT op, layer FROM measurements)) FROM measurements"));
    if (count.step() != SQLITE_ROW) return Error{sqlite_error(db, sqlite3_errcode(db))};
    stats.rows = count.column_int(0);
    stats.kernels = count.column_int(1);
    UCUDNN_TRY_ASSIGN(Statement gpus,
                      Statement::prepare(db, "SELECT DISTINCT gpu_name FROM measurements ORDER BY gpu_name"));
    while (gpus.step() == SQLITE_ROW) stats.gpus.push_back(gpus.column_text(0));
    UCUDNN_TRY_ASSIGN(Statement versions,
                      Statement::prepare(db, "SELECT DISTINCT cudnn_version FROM measurements ORDER BY 1"));
    while (versions.step() == SQLITE_ROW) stats.cudnn_versions.push_back(static_cast<int>(versions.column_int(0)));
    return Status::success();
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': ");
  return stats;
}

Status BenchmarkDatabase::verify() {
  std::string problem;
  auto done = transaction(false, [&]() -> Status {
    sqlite3* db = db_.get();
    UCUDNN_TRY_ASSIGN(Statement check, Statement::prepare(db, "PRAGMA integrity_check"));
    while (check.step() == SQLITE_ROW) {
      const std::string line = check.column_text(0);
      if (line != "ok") problem += (problem.empty() ? "" : "; ") + line;
    }
    UCUDNN_TRY_ASSIGN(const int version, read_schema_version(db));
    if (version != kSchemaVersion && problem.empty()) {
      problem = "schema version " + std::to_string(version) + ", expected " + std::to_string(kSchemaVersion);
    }
    return Status::success();
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': ");
  if (!problem.empty()) return Error{"benchmark database '" + path_ + "' failed verification: " + problem};
  return Status::success();
}

}  // namespace ucudnn
