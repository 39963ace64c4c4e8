#include "store/database.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <ctime>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <thread>

#include "core/measurement_csv.h"
#include "store/sqlite.h"

namespace ucudnn {
namespace {

// Version 3, as a new file gets it. A version-1 or version-2 file upgraded in place
// (kUpgradeFromVersion1, then kUpgradeFromVersion2) ends with the same columns, keys and index;
// `engine` and `host_ms` come last in both, where ALTER TABLE adds them.
constexpr const char* kCreateMeta = "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)";
constexpr const char* kCreateMeasurements =
    "CREATE TABLE IF NOT EXISTS measurements("
    " gpu_name TEXT NOT NULL, compute_capability INTEGER NOT NULL, sm_count INTEGER NOT NULL,"
    " cudnn_version INTEGER NOT NULL, cuda_runtime_version INTEGER NOT NULL,"
    " op TEXT NOT NULL, layer TEXT NOT NULL, micro_batch INTEGER NOT NULL,"
    " algo INTEGER NOT NULL, math_type INTEGER NOT NULL, deterministic INTEGER NOT NULL,"
    " time_ms REAL NOT NULL, workspace_bytes INTEGER NOT NULL, measured_at TEXT NOT NULL,"
    " engine TEXT NOT NULL DEFAULT '', host_ms REAL NOT NULL DEFAULT 0)";
constexpr const char* kCreateMeasurementsKey =
    "CREATE UNIQUE INDEX IF NOT EXISTS measurements_key ON measurements(gpu_name, compute_capability,"
    " sm_count, cudnn_version, cuda_runtime_version, op, layer, micro_batch, algo, math_type, engine)";
constexpr const char* kCreateCoverage =
    "CREATE TABLE IF NOT EXISTS coverage("
    " gpu_name TEXT NOT NULL, compute_capability INTEGER NOT NULL, sm_count INTEGER NOT NULL,"
    " cudnn_version INTEGER NOT NULL, cuda_runtime_version INTEGER NOT NULL,"
    " op TEXT NOT NULL, layer TEXT NOT NULL, micro_batch INTEGER NOT NULL,"
    " measured_up_to INTEGER NOT NULL, candidates INTEGER NOT NULL DEFAULT 0,"
    " PRIMARY KEY(gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, op, layer,"
    " micro_batch, candidates))";
constexpr const char* kSchema[] = {kCreateMeta, kCreateMeasurements, kCreateMeasurementsKey, kCreateCoverage};

// Version 1 to 2: the engine column joins the rows and their unique key; coverage gains the kind
// of candidate in its primary key, which SQLite can only change by rebuilding the table (the old
// rows become the legacy kind's). Run inside one write transaction: all of it or nothing.
constexpr const char* kUpgradeFromVersion1[] = {
    "ALTER TABLE measurements ADD COLUMN engine TEXT NOT NULL DEFAULT ''",
    "DROP INDEX IF EXISTS measurements_key",
    kCreateMeasurementsKey,
    "ALTER TABLE coverage RENAME TO coverage_version_1",
    kCreateCoverage,
    "INSERT INTO coverage(gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, op, layer,"
    " micro_batch, measured_up_to, candidates) SELECT gpu_name, compute_capability, sm_count, cudnn_version,"
    " cuda_runtime_version, op, layer, micro_batch, measured_up_to, 0 FROM coverage_version_1",
    "DROP TABLE coverage_version_1",
};

// Version 2 to 3: the host's time to issue a call joins the rows; rows measured before it say 0
// (not measured), and are planned on their GPU time as before.
constexpr const char* kUpgradeFromVersion2[] = {
    "ALTER TABLE measurements ADD COLUMN host_ms REAL NOT NULL DEFAULT 0",
};

// Parameters ?1 to ?8 of every statement that names one micro-batch kernel.
constexpr const char* kKeyColumns =
    "gpu_name = ?1 AND compute_capability = ?2 AND sm_count = ?3 AND cudnn_version = ?4 AND "
    "cuda_runtime_version = ?5 AND op = ?6 AND layer = ?7 AND micro_batch = ?8";
// ?9, the CandidateKind (version 2 only): a coverage row's, and which rows are of that kind.
constexpr const char* kCoverageOfKind = " AND candidates = ?9";
constexpr const char* kRowsOfKind = " AND (engine <> '') = ?9";

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

// Errors that mean the file's pages do not hold what SQLite expects.
bool sqlite_corrupt(int code) {
  const int primary = code & 0xff;
  return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB;
}

// The error of a failed step: damage is called damage, whatever statement met it.
Error step_error(const Statement& statement, int code) {
  if (sqlite_corrupt(code)) return Error{"the file is corrupt (" + statement.error(code) + ")"};
  return Error{statement.error(code)};
}

// The schema version stored in `meta`, 0 for a file without ucudnn's tables; an error for an
// SQLite file that holds other tables, for a damaged file, or for a file that is not SQLite.
Expected<int> read_schema_version(sqlite3* db) {
  UCUDNN_TRY_ASSIGN(Statement tables, Statement::prepare(db, "SELECT name FROM sqlite_master WHERE type = 'table'"));
  std::set<std::string> names;
  int rc;
  while ((rc = tables.step()) == SQLITE_ROW) names.insert(tables.column_text(0));
  if (rc != SQLITE_DONE) return step_error(tables, rc);
  if (names.empty()) return 0;
  if (!names.count("meta")) return Error{"it is an SQLite database, but not a ucudnn benchmark database"};
  UCUDNN_TRY_ASSIGN(Statement version, Statement::prepare(db, "SELECT value FROM meta WHERE key = 'schema_version'"));
  rc = version.step();
  if (rc == SQLITE_DONE) return Error{"its schema version is missing"};
  if (rc != SQLITE_ROW) return step_error(version, rc);
  const std::string text = version.column_text(0);
  // Digits only, and few enough for an int: anything else is damage or not ours, said as such.
  int value = 0;
  const auto parsed = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isdigit(c);
  });
  if (!digits || parsed.ec != std::errc() || parsed.ptr != text.data() + text.size()) {
    return Error{"its schema version '" + text.substr(0, 40) + "' is not a valid version number"};
  }
  return value;
}

// The version of a file being read: 0 (no tables yet), 1 (read as it is: a read-only
// connection never upgrades) or 2. A newer one (another process's newer ucudnn upgraded the file
// since it was opened) is refused: its tables may mean something else.
Expected<int> readable_version(sqlite3* db) {
  UCUDNN_TRY_ASSIGN(const int version, read_schema_version(db));
  if (version > kSchemaVersion) {
    return Error{"its schema version " + std::to_string(version) + " is newer than this ucudnn's " +
                 std::to_string(kSchemaVersion) + "; use a newer ucudnn"};
  }
  return version;
}

// What the first 100 bytes of a file say. They are read through SQLite's own file layer: a
// descriptor of our own, closed, would drop the POSIX locks that other connections of this
// process hold on the file.
enum class FileKind { kEmpty, kNotSqlite, kRollback, kWal };

Expected<FileKind> file_kind(const std::string& path) {
  sqlite3_vfs* vfs = sqlite3_vfs_find(nullptr);
  if (vfs == nullptr) return Error{ErrorCode::kInternal, "SQLite has no file layer"};
  std::unique_ptr<std::max_align_t[]> storage(
      new std::max_align_t[static_cast<std::size_t>(vfs->szOsFile) / sizeof(std::max_align_t) + 1]());
  auto* file = reinterpret_cast<sqlite3_file*>(storage.get());
  // A name made by sqlite3_create_filename: what a file layer may expect for a main database.
  const char* name = sqlite3_create_filename(path.c_str(), "", "", 0, nullptr);
  if (name == nullptr) return Error{ErrorCode::kAllocFailed, "out of memory"};
  int flags = 0;
  int rc = vfs->xOpen(vfs, name, file, SQLITE_OPEN_READONLY | SQLITE_OPEN_MAIN_DB, &flags);
  if (rc != SQLITE_OK) {
    if (file->pMethods) file->pMethods->xClose(file);
    sqlite3_free_filename(name);
    return Error{std::string("cannot read it: ") + std::strerror(errno) + " (" + sqlite3_errstr(rc) + ")"};
  }
  sqlite3_int64 size = 0;
  rc = file->pMethods->xFileSize(file, &size);
  unsigned char header[100] = {};
  if (rc == SQLITE_OK && size >= static_cast<sqlite3_int64>(sizeof header)) {
    rc = file->pMethods->xRead(file, header, sizeof header, 0);
  }
  file->pMethods->xClose(file);
  sqlite3_free_filename(name);
  if (rc != SQLITE_OK) return Error{std::string("cannot read it (") + sqlite3_errstr(rc) + ")"};
  if (size == 0) return FileKind::kEmpty;
  static const char kMagic[] = "SQLite format 3";  // and its terminating zero byte
  if (size < static_cast<sqlite3_int64>(sizeof header) || std::memcmp(header, kMagic, sizeof kMagic) != 0) {
    return FileKind::kNotSqlite;
  }
  return header[18] == 2 || header[19] == 2 ? FileKind::kWal : FileKind::kRollback;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// The files SQLite keeps beside a database while it is in use.
struct SideFiles {
  bool journal = false, wal = false, shm = false;
};
SideFiles side_files(const std::string& path) {
  return SideFiles{exists(path + "-journal"), exists(path + "-wal"), exists(path + "-shm")};
}

// Runs the first read of a connection: where SQLite recovers, or finds what it cannot open.
int first_read(sqlite3* db) { return sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr); }

enum class Access { kReadOnly, kImmutable, kReadWrite };

Expected<SqliteConnection> connect(const std::string& path, Access access, int busy_timeout_ms) {
  const char* query = access == Access::kImmutable ? "mode=ro&immutable=1" : access == Access::kReadOnly ? "mode=ro" : "";
  const int flags = SQLITE_OPEN_URI | SQLITE_OPEN_FULLMUTEX |
                    (access == Access::kReadWrite ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY);
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(sqlite_uri(path, query).c_str(), &raw, flags, nullptr);
  SqliteConnection connection(raw);  // closed on failure too
  if (rc != SQLITE_OK) return Error{"cannot open: " + sqlite_error(raw, rc)};
  sqlite3_busy_timeout(raw, busy_timeout_ms);
  sqlite3_extended_result_codes(raw, 1);
  return connection;
}

bool same_file_state(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_size == b.st_size &&
         a.st_mtim.tv_sec == b.st_mtim.tv_sec && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

// A WAL file that no process has open, copied into memory through an immutable (lock-free)
// connection: a consistent snapshot, where an immutable connection kept open would mix the pages
// it cached with pages that a later writer checkpoints into the file. Null when the file changed
// during the copy or a writer appeared: then it is no longer idle, and is read with locks.
Expected<SqliteConnection> snapshot_in_memory(const std::string& path, int busy_timeout_ms) {
  struct stat before {}, after {};
  if (::stat(path.c_str(), &before) != 0) return Error{"cannot read it (" + std::string(std::strerror(errno)) + ")"};
  UCUDNN_TRY_ASSIGN(const SqliteConnection file, connect(path, Access::kImmutable, busy_timeout_ms));
  sqlite3* raw = nullptr;
  const int opened = sqlite3_open_v2(":memory:", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, nullptr);
  SqliteConnection memory(raw);
  if (opened != SQLITE_OK) return Error{"cannot make a snapshot in memory: " + sqlite_error(raw, opened)};
  sqlite3_backup* backup = sqlite3_backup_init(memory.get(), "main", file.get(), "main");
  if (!backup) return Error{"cannot read it: " + sqlite_error(memory.get(), sqlite3_errcode(memory.get()))};
  const int copied = sqlite3_backup_step(backup, -1);
  sqlite3_backup_finish(backup);
  const SideFiles side = side_files(path);
  const bool unchanged = ::stat(path.c_str(), &after) == 0 && same_file_state(before, after) && !side.wal &&
                         !side.shm && !side.journal;
  if (!unchanged) return SqliteConnection();
  if (copied != SQLITE_DONE) return Error{"cannot read it: " + sqlite_error(file.get(), copied)};
  sqlite3_busy_timeout(memory.get(), busy_timeout_ms);
  sqlite3_extended_result_codes(memory.get(), 1);
  return memory;
}

// How a WAL file that no process has open (no -wal, no -shm) is read: its main file then holds
// every committed row, and opening it normally would create a -shm with the file's own
// permissions. A short look (the probe) reads it lock-free in place; a connection that is kept
// copies it into memory (snapshot_in_memory says why).
enum class IdleWal { kWithLocks, kLookInPlace, kCopyToMemory };

// A connection that only reads an existing file, creating nothing beside it where it can:
// - a WAL file that no process has open is read as `idle` says;
// - a hot journal left by a killed writer is rolled back, as SQLite does on a normal open,
//   through a read-write connection where `may_write`; where not, the error names the journal.
//   A file with a hot journal is never read as immutable: its pages are half written.
Expected<SqliteConnection> connect_for_reading(const std::string& path, FileKind kind, IdleWal idle, bool may_write,
                                               int busy_timeout_ms) {
  const SideFiles side = side_files(path);
  if (kind == FileKind::kWal && !side.wal && !side.shm) {
    if (idle == IdleWal::kLookInPlace) return connect(path, Access::kImmutable, busy_timeout_ms);
    if (idle == IdleWal::kCopyToMemory) {
      UCUDNN_TRY_ASSIGN(SqliteConnection snapshot, snapshot_in_memory(path, busy_timeout_ms));
      if (snapshot) return snapshot;  // else a writer appeared: read with locks, as below
    }
  }
  UCUDNN_TRY_ASSIGN(SqliteConnection connection, connect(path, Access::kReadOnly, busy_timeout_ms));
  const int rc = first_read(connection.get());
  if (rc == SQLITE_READONLY_ROLLBACK) {
    if (!may_write) {
      return Error{"'" + path + "-journal' holds a write that was interrupted and must be rolled back first, "
                   "which needs permission to write the database: open it once as a user who may write it"};
    }
    UCUDNN_TRY_ASSIGN(SqliteConnection writer, connect(path, Access::kReadWrite, busy_timeout_ms));
    const int recovered = first_read(writer.get());
    if (recovered != SQLITE_OK && !sqlite_corrupt(recovered)) {
      return Error{"cannot roll back the interrupted write in '" + path + "-journal': " +
                   sqlite_error(writer.get(), recovered)};
    }
    return writer;  // damage shows in the checks that follow
  }
  const int primary = rc & 0xff;
  if (kind == FileKind::kWal && (primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY)) {
    return Error{"it is in WAL mode, and its '" + path + "-shm' file cannot be created or used by this process (" +
                 sqlite_error(connection.get(), rc) + "); open it once as a user who may write its directory"};
  }
  return connection;  // other failures show in the schema checks that follow
}

// Looks at an existing file without writing to it or creating anything beside it: nothing is
// written to a file that turns out not to be ours, to be corrupt, or to come from a newer
// ucudnn. (The one write: a hot journal is rolled back where this process may write the file.)
Status probe_existing(const std::string& path, bool may_write, int busy_timeout_ms) {
  const std::string refused = "refused and left untouched: ";
  UCUDNN_TRY_ASSIGN(const FileKind kind, file_kind(path));
  if (kind == FileKind::kNotSqlite) return Error{refused + "it is not an SQLite database"};
  auto probe_once = [&](IdleWal idle) -> Status {
    UCUDNN_TRY_ASSIGN(const SqliteConnection probe, connect_for_reading(path, kind, idle, may_write, busy_timeout_ms));
    auto version = read_schema_version(probe.get());
    if (!version) return version.error().prefixed(refused);
    // Damage past the first page shows only when every page is read.
    auto check = Statement::prepare(probe.get(), "PRAGMA quick_check(1)");
    if (!check) return check.error().prefixed(refused);
    const int rc = check.value().step();
    if (rc != SQLITE_ROW || check.value().column_text(0) != "ok") {
      const std::string detail = rc == SQLITE_ROW ? check.value().column_text(0) : check.value().error(rc);
      return Error{refused + "the file is corrupt (" + detail + ")"};
    }
    if (*version > kSchemaVersion) {
      return Error{refused + "its schema version " + std::to_string(*version) + " is newer than this ucudnn's " +
                   std::to_string(kSchemaVersion) + "; use a newer ucudnn"};
    }
    return Status::success();
  };
  Status probed = probe_once(IdleWal::kLookInPlace);
  // An immutable look races with a writer that starts meanwhile: if one did, look again with locks.
  if (!probed && kind == FileKind::kWal) {
    const SideFiles now = side_files(path);
    if (now.wal || now.shm) probed = probe_once(IdleWal::kWithLocks);
  }
  return probed;
}

// Whether this process may (and is asked to) write the file, or create it in its directory.
bool may_write(const std::string& path, bool exists, bool read_only) {
  const std::string dir = directory_of(path);
  return !read_only && !mounted_read_only(dir) && ::access(dir.c_str(), W_OK) == 0 &&
         (!exists || ::access(path.c_str(), W_OK) == 0);
}

// A -wal or -shm that this process cannot write makes every write fail with "attempt to write a
// readonly database"; name the file instead (a read-only open of an older ucudnn left such a
// -shm behind, with the database's read-only permissions).
Status side_files_writable(const std::string& path) {
  for (const char* suffix : {"-shm", "-wal", "-journal"}) {
    const std::string side = path + suffix;
    if (exists(side) && ::access(side.c_str(), W_OK) != 0) {
      return Error{"'" + side + "' is not writable by this process, so no write to the database can succeed; "
                   "if no process has the database open, delete that file (or fix its permissions)"};
    }
  }
  return Status::success();
}

constexpr const char* kJournalNames[] = {"auto", "wal", "delete", "truncate", "persist"};

const char* journal_name(JournalMode mode) { return kJournalNames[static_cast<int>(mode)]; }

// The journal mode SQLite reports for the connection, or an error.
Expected<std::string> current_journal_mode(sqlite3* db, const std::string& pragma) {
  UCUDNN_TRY_ASSIGN(Statement statement, Statement::prepare(db, pragma));
  const int rc = statement.step();
  if (rc != SQLITE_ROW) return Error{statement.error(rc)};
  return statement.column_text(0);
  // the statement is finalised here: an unfinished one would hold a lock on the file
}

// Switches to `wanted` and confirms that SQLite uses it. Leaving or entering WAL needs a moment
// of exclusive access: while other connections have the file open the switch fails (and SQLite
// keeps the old mode without an error), so it is retried with backoff until the busy timeout,
// then reported; a database never silently stays in another mode than the one asked for.
Status switch_journal_mode(sqlite3* db, JournalMode wanted, int busy_timeout_ms) {
  const std::string name = journal_name(wanted);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms);
  std::mt19937 rng(std::random_device{}());
  int backoff_ms = 2;
  std::string last;
  while (true) {
    auto switched = current_journal_mode(db, "PRAGMA journal_mode=" + name);
    if (switched && *switched == name) {
      UCUDNN_TRY_ASSIGN(const std::string actual, current_journal_mode(db, "PRAGMA journal_mode"));
      if (actual == name) return Status::success();
      last = "it reports '" + actual + "'";
    } else if (switched) {
      last = "it stays in '" + *switched + "' mode while other connections have it open";
    } else if (sqlite_busy(sqlite3_extended_errcode(db))) {
      const auto actual = current_journal_mode(db, "PRAGMA journal_mode");
      last = "it stays in '" + (actual ? *actual : std::string("its old")) +
             "' mode while other connections have it open";
    } else {
      return Error{"cannot set journal mode '" + name + "': " + switched.message()};
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return Error{"cannot set journal mode '" + name + "' (UCUDNN_DATABASE_JOURNAL): " + last +
                   "; close them, or use the mode the others use"};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(1, backoff_ms)(rng)));
    backoff_ms = std::min(backoff_ms * 2, 200);
  }
}

// Creates the schema in an empty file (version 0) or upgrades an older file step by step, and
// records the current version; the caller's transaction makes it all or nothing.
Status create_or_upgrade(sqlite3* db, int version) {
  if (version < 1) {
    for (const char* sql : kSchema) UCUDNN_TRY(exec(db, sql));
  } else {
    if (version < 2) {
      for (const char* sql : kUpgradeFromVersion1) UCUDNN_TRY(exec(db, sql));
    }
    if (version < 3) {
      for (const char* sql : kUpgradeFromVersion2) UCUDNN_TRY(exec(db, sql));
    }
  }
  UCUDNN_TRY_ASSIGN(Statement set, Statement::prepare(db,
                                                      "INSERT INTO meta(key, value) VALUES('schema_version', ?1) "
                                                      "ON CONFLICT(key) DO UPDATE SET value = excluded.value"));
  set.bind(1, std::to_string(kSchemaVersion));
  const int rc = set.step();
  if (rc != SQLITE_DONE) return Error{set.error(rc)};
  return Status::success();
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
  const bool writable = may_write(path, exists, options.read_only);
  // Whether this process could write the file at all (a hot journal needs it), asked or not.
  const bool file_writable = may_write(path, exists, false);
  if (exists) {
    auto probed = probe_existing(path, file_writable, options.busy_timeout_ms);
    if (!probed) return probed.error().prefixed(where);
  }
  if (!exists && !writable) return Error{where + "does not exist and its directory is not writable"};

  std::unique_ptr<BenchmarkDatabase> database(new BenchmarkDatabase());
  database->path_ = path;
  database->busy_timeout_ms_ = options.busy_timeout_ms;
  database->read_only_ = !writable;
  if (writable) {
    auto usable = side_files_writable(path);
    if (!usable) return usable.error().prefixed(where);
    auto connection = connect(path, Access::kReadWrite, options.busy_timeout_ms);
    if (!connection) return connection.error().prefixed(where);
    database->db_ = std::move(connection).value();
    auto prepared = database->prepare_for_writing(options.journal);
    if (!prepared) return prepared.error().prefixed(where);
  } else {
    // Only a file this process cannot write is read as a snapshot when no process has it open:
    // a normal open would leave a -shm with the file's read-only permissions, which breaks
    // writes once the file is writable again.
    auto kind = file_kind(path);
    if (!kind) return kind.error().prefixed(where);
    auto connection = connect_for_reading(path, *kind, file_writable ? IdleWal::kWithLocks : IdleWal::kCopyToMemory,
                                          file_writable, options.busy_timeout_ms);
    if (!connection) return connection.error().prefixed(where);
    database->db_ = std::move(connection).value();
  }
  return database;
}

Status BenchmarkDatabase::prepare_for_writing(JournalMode requested) {
  // Nothing, not even the journal mode, changes before the file is known to be ours (the probe
  // said so, but another process may have replaced the file since).
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const int rc = first_read(db_.get());
    if (rc != SQLITE_OK && !sqlite_busy(rc)) return Error{"refused and left untouched: " + sqlite_error(db_.get(), rc)};
  }
  auto checked = transaction(false, [&]() -> Status {
    UCUDNN_TRY_ASSIGN(const int version, read_schema_version(db_.get()));
    if (version > kSchemaVersion) return Error{"its schema version is newer than this ucudnn's"};
    return Status::success();
  });
  if (!checked) return checked.error().prefixed("refused and left untouched: ");
  journal_ = requested == JournalMode::kAuto ? journal_mode_for(path_) : requested;
  UCUDNN_TRY(switch_journal_mode(db_.get(), journal_, busy_timeout_ms_));
  UCUDNN_TRY(exec(db_.get(), journal_ == JournalMode::kWal ? "PRAGMA synchronous=NORMAL" : "PRAGMA synchronous=FULL"));
  return initialise_schema();
}

Status BenchmarkDatabase::initialise_schema() {
  return transaction(true, [&]() -> Status {
    UCUDNN_TRY_ASSIGN(const int version, read_schema_version(db_.get()));
    if (version > kSchemaVersion) return Error{"its schema version is newer than this ucudnn's"};
    Status done = create_or_upgrade(db_.get(), version);
    if (!done && version >= 1 && version < kSchemaVersion) {
      const std::string from = std::to_string(version);
      return done.error().prefixed("cannot upgrade it from schema version " + from + " to " +
                                   std::to_string(kSchemaVersion) + " (it stays a valid version " + from + "): ");
    }
    return done;
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

// The engine and host_ms columns as a file of `version` has them, last in every row read: a
// version-1 file has no engine column (read as ''), a version-2 file no host_ms (read as 0).
std::string engine_and_host_columns(int version) {
  return std::string(version < 2 ? "''" : "engine") + (version < 3 ? ", 0" : ", host_ms");
}

// The columns a lookup reads, in measurement_of's order.
std::string lookup_columns(int version) {
  return "algo, math_type, deterministic, time_ms, workspace_bytes, " + engine_and_host_columns(version);
}

Measurement measurement_of(const Statement& rows, int micro_batch) {
  Measurement m;
  m.micro_batch = micro_batch;
  m.algo = static_cast<int>(rows.column_int(0));
  m.math_type = static_cast<int>(rows.column_int(1));
  m.deterministic = rows.column_int(2) != 0;
  m.time_ms = rows.column_double(3);
  m.workspace_bytes = static_cast<std::size_t>(rows.column_int(4));
  m.engine = rows.column_text(5);
  m.host_ms = rows.column_double(6);
  return m;
}

// One kind's coverage and rows of one micro-batch kernel, in a file of `version` (1 to 3).
Status look_up(sqlite3* db, int version, const DeviceIdentity& identity, const ConvKey& micro_key, CandidateKind kind,
               std::optional<BenchmarkDatabase::Lookup>* found) {
  // A version-1 file (read-only, so not upgraded) knows legacy algorithms only.
  const bool version_1 = version < 2;
  if (version_1 && kind != CandidateKind::kLegacy) return Status::success();
  const std::string layer = micro_key.layer_signature();
  const auto bind = [&](Statement& s) {
    bind_key(s, identity, micro_key.op, layer, micro_key.batch());
    if (!version_1) s.bind(9, std::int64_t{static_cast<int>(kind)});
  };
  UCUDNN_TRY_ASSIGN(Statement coverage,
                    Statement::prepare(db, std::string("SELECT measured_up_to FROM coverage WHERE ") + kKeyColumns +
                                               (version_1 ? "" : kCoverageOfKind)));
  bind(coverage);
  int rc = coverage.step();
  if (rc == SQLITE_DONE) return Status::success();
  if (rc != SQLITE_ROW) return step_error(coverage, rc);
  BenchmarkDatabase::Lookup result;
  result.measured_up_to = from_stored_bound(coverage.column_int(0));
  UCUDNN_TRY_ASSIGN(Statement rows,
                    Statement::prepare(db, "SELECT " + lookup_columns(version) + " FROM measurements WHERE " +
                                               kKeyColumns + (version_1 ? "" : kRowsOfKind)));
  bind(rows);
  while ((rc = rows.step()) == SQLITE_ROW) result.rows.push_back(measurement_of(rows, micro_key.batch()));
  if (rc != SQLITE_DONE) return step_error(rows, rc);
  *found = std::move(result);
  return Status::success();
}

}  // namespace

Expected<std::optional<BenchmarkDatabase::Lookup>> BenchmarkDatabase::lookup(const DeviceIdentity& identity,
                                                                             const ConvKey& micro_key,
                                                                             CandidateKind kind) {
  std::optional<Lookup> found;
  auto done = transaction(false, [&]() -> Status {
    found.reset();
    // A read-only file without ucudnn's tables (an empty file) simply has nothing.
    UCUDNN_TRY_ASSIGN(const int version, readable_version(db_.get()));
    if (version == 0) return Status::success();
    return look_up(db_.get(), version, identity, micro_key, kind, &found);
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': lookup failed: ");
  return found;
}

namespace {

// A row as a person finds it: "algo 3 math_type 1" or "engine eng12:k3=1", with its micro-batch.
std::string describe_row(const Measurement& m) {
  const std::string candidate = m.is_engine()
                                    ? "engine " + m.engine.substr(0, 80)
                                    : "algo " + std::to_string(m.algo) + " math_type " + std::to_string(m.math_type);
  return candidate + " at micro-batch " + std::to_string(m.micro_batch);
}

// What a row must be to be stored, so that every stored row reads back as its kind: an engine
// row has algo -1 and a canonical engine id (one spelling per configuration, one row per key), a
// legacy row an algorithm >= 0.
Status check_row(const Measurement& m) {
  // NaN fails both comparisons: only a finite, non-negative time is stored.
  if (!(m.time_ms >= 0 && m.time_ms <= kMaxTimeMs)) return Error{"its GPU time is not from 0 to 1e9 ms"};
  if (!(m.host_ms >= 0 && m.host_ms <= kMaxTimeMs)) return Error{"its host time is not from 0 to 1e9 ms"};
  if (!m.is_engine()) {
    if (m.algo < 0) return Error{"a legacy row needs an algorithm >= 0, not " + std::to_string(m.algo)};
    return Status::success();
  }
  if (m.algo != -1) return Error{"an engine row has algo -1, not " + std::to_string(m.algo)};
  UCUDNN_TRY_ASSIGN(const EngineConfigId config, parse_engine_config(m.engine));
  const std::string canonical = format_engine_config(config);
  if (canonical != m.engine) {
    return Error{"engine configuration '" + m.engine.substr(0, 80) + "' is not canonical ('" + canonical + "')"};
  }
  return Status::success();
}

const char* a_kind(CandidateKind kind) { return kind == CandidateKind::kEngine ? "an engine" : "a legacy"; }

// Every row of one kind checked before anything is written; the error names the first bad one.
Status check_rows(const std::vector<Measurement>& rows, CandidateKind kind) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Measurement& m = rows[i];
    const std::string which = "row " + std::to_string(i + 1) + " (" + describe_row(m) + ")";
    if (kind_of(m) != kind) {
      return Error{which + " is " + a_kind(kind_of(m)) + " candidate, not " + a_kind(kind) + " one"};
    }
    auto checked = check_row(m);
    if (!checked) return checked.error().prefixed(which + ": ");
  }
  return Status::success();
}

Status insert_row(sqlite3* db, Statement& insert, const StoredRow& row, long long* inserted) {
  insert.reset();
  bind_key(insert, row.identity, row.op, row.layer, row.measurement.micro_batch);
  insert.bind(9, std::int64_t{row.measurement.algo})
      .bind(10, std::int64_t{row.measurement.math_type})
      .bind(11, std::int64_t{row.measurement.deterministic ? 1 : 0})
      .bind(12, row.measurement.time_ms)
      .bind(13, static_cast<std::int64_t>(row.measurement.workspace_bytes))
      .bind(14, row.measured_at)
      .bind(15, row.measurement.engine)
      .bind(16, row.measurement.host_ms);
  const int rc = insert.step();
  if (rc != SQLITE_DONE) return step_error(insert, rc);
  *inserted += sqlite3_changes(db);
  return Status::success();
}

Status raise_coverage(Statement& upsert, const DeviceIdentity& id, ConvOp op, const std::string& layer, int micro_batch,
                      CandidateKind kind, std::size_t bound) {
  upsert.reset();
  bind_key(upsert, id, op, layer, micro_batch);
  upsert.bind(9, to_stored_bound(bound)).bind(10, std::int64_t{static_cast<int>(kind)});
  const int rc = upsert.step();
  if (rc != SQLITE_DONE) return step_error(upsert, rc);
  return Status::success();
}

constexpr const char* kInsertRow =
    "INSERT INTO measurements(gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, op, "
    "layer, micro_batch, algo, math_type, deterministic, time_ms, workspace_bytes, measured_at, engine, host_ms) "
    "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16) ON CONFLICT DO NOTHING";
constexpr const char* kRaiseCoverage =
    "INSERT INTO coverage(gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, op, layer, "
    "micro_batch, measured_up_to, candidates) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
    "ON CONFLICT DO UPDATE SET measured_up_to = max(measured_up_to, excluded.measured_up_to)";

// The columns all_rows reads, in stored_row_of's order.
std::string all_row_columns(int version) {
  return "gpu_name, compute_capability, sm_count, cudnn_version, cuda_runtime_version, op, layer, "
         "micro_batch, algo, math_type, deterministic, time_ms, workspace_bytes, measured_at, " +
         engine_and_host_columns(version);
}

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
  row.measurement.engine = s.column_text(14);
  row.measurement.host_ms = s.column_double(15);
  return row;
}

}  // namespace

Expected<long long> BenchmarkDatabase::store_rows(const std::vector<StoredRow>& rows, std::size_t measured_up_to) {
  if (read_only_) return Error{"benchmark database '" + path_ + "' is read-only"};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto checked = check_row(rows[i].measurement);
    if (!checked) {
      return checked.error().prefixed("benchmark database '" + path_ + "': nothing stored: row " +
                                      std::to_string(i + 1) + " (" + describe_row(rows[i].measurement) + "): ");
    }
  }
  long long inserted = 0;
  auto done = transaction(true, [&]() -> Status {
    inserted = 0;
    sqlite3* db = db_.get();
    UCUDNN_TRY_ASSIGN(Statement insert, Statement::prepare(db, kInsertRow));
    UCUDNN_TRY_ASSIGN(Statement upsert, Statement::prepare(db, kRaiseCoverage));
    for (const StoredRow& row : rows) {
      UCUDNN_TRY(insert_row(db, insert, row, &inserted));
      UCUDNN_TRY(raise_coverage(upsert, row.identity, row.op, row.layer, row.measurement.micro_batch,
                                kind_of(row.measurement), measured_up_to));
    }
    return Status::success();
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': store failed: ");
  return inserted;
}

Status BenchmarkDatabase::store(const DeviceIdentity& identity, const ConvKey& micro_key, CandidateKind kind,
                                std::size_t measured_up_to, const std::vector<Measurement>& rows) {
  if (read_only_) return Error{"benchmark database '" + path_ + "' is read-only"};
  auto checked = check_rows(rows, kind);
  if (!checked) return checked.error().prefixed("benchmark database '" + path_ + "': nothing stored: ");
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
    return raise_coverage(upsert, identity, micro_key.op, layer, micro_key.batch(), kind, measured_up_to);
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': store failed: ");
  return Status::success();
}

Expected<std::vector<StoredRow>> BenchmarkDatabase::all_rows() {
  std::vector<StoredRow> rows;
  auto done = transaction(false, [&]() -> Status {
    rows.clear();
    sqlite3* db = db_.get();
    UCUDNN_TRY_ASSIGN(const int version, readable_version(db));
    if (version == 0) return Status::success();
    // Ordered by the key, the engine (column 15) last.
    UCUDNN_TRY_ASSIGN(Statement select,
                      Statement::prepare(db, "SELECT " + all_row_columns(version) +
                                                 " FROM measurements ORDER BY gpu_name, compute_capability, sm_count, "
                                                 "cudnn_version, cuda_runtime_version, layer, op, micro_batch, algo, "
                                                 "math_type, 15"));
    int rc;
    while ((rc = select.step()) == SQLITE_ROW) {
      const auto op = parse_conv_op(select.column_text(5));
      if (!op) return Error{"unknown op '" + select.column_text(5) + "' in a stored row"};
      rows.push_back(stored_row_of(select, *op));
    }
    if (rc != SQLITE_DONE) return step_error(select, rc);
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
    UCUDNN_TRY_ASSIGN(const int version, readable_version(db));
    if (version == 0) return Status::success();
    // The engine rows in the same pass over the table as the count (a version-1 file has none).
    const std::string engine_rows = version < 2 ? "0" : "coalesce(sum(engine <> ''), 0)";
    UCUDNN_TRY_ASSIGN(Statement count, Statement::prepare(db,
                                                          "SELECT count(*), (SELECT count(*) FROM (SELECT "
                                                          "DISTINCT op, layer FROM measurements)), " +
                                                              engine_rows + " FROM measurements"));
    int rc = count.step();
    if (rc != SQLITE_ROW) return step_error(count, rc);
    stats.rows = count.column_int(0);
    stats.kernels = count.column_int(1);
    stats.engine_rows = count.column_int(2);
    // Every list is read to its end or the whole answer fails: never a shortened list.
    UCUDNN_TRY_ASSIGN(Statement gpus,
                      Statement::prepare(db, "SELECT DISTINCT gpu_name FROM measurements ORDER BY gpu_name"));
    while ((rc = gpus.step()) == SQLITE_ROW) stats.gpus.push_back(gpus.column_text(0));
    if (rc != SQLITE_DONE) return step_error(gpus, rc);
    UCUDNN_TRY_ASSIGN(Statement versions,
                      Statement::prepare(db, "SELECT DISTINCT cudnn_version FROM measurements ORDER BY 1"));
    while ((rc = versions.step()) == SQLITE_ROW) stats.cudnn_versions.push_back(static_cast<int>(versions.column_int(0)));
    if (rc != SQLITE_DONE) return step_error(versions, rc);
    return Status::success();
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': ");
  return stats;
}

namespace {

constexpr const char* kTableColumns = "SELECT name, pk FROM pragma_table_info(?1)";
constexpr const char* kIndexColumns = "SELECT name, 0 FROM pragma_index_info(?1)";

// The columns of a table or index (`sql`: kTableColumns or kIndexColumns), each with its place in
// the primary key (0: none); empty for an object that does not exist.
Expected<std::map<std::string, std::int64_t>> columns_of(sqlite3* db, const char* sql, const std::string& name) {
  UCUDNN_TRY_ASSIGN(Statement select, Statement::prepare(db, sql));
  select.bind(1, name);
  std::map<std::string, std::int64_t> columns;
  int rc;
  while ((rc = select.step()) == SQLITE_ROW) columns[select.column_text(0)] = select.column_int(1);
  if (rc != SQLITE_DONE) return step_error(select, rc);
  return columns;
}

// What versions 2 and 3 add, where the tables and the index exist and `version` has them: the
// engine in the rows and in their unique key (without it, an engine row would be dropped as a
// duplicate of another engine's), the kind of candidate in coverage's primary key (2), and the
// host time in the rows (3).
Expected<std::string> added_column_problems(sqlite3* db, int version) {
  std::string problem;
  if (version < 2) return problem;
  const auto add = [&](const std::string& text) { problem += (problem.empty() ? "" : "; ") + text; };
  UCUDNN_TRY_ASSIGN(const auto measurements, columns_of(db, kTableColumns, "measurements"));
  if (!measurements.empty() && !measurements.count("engine")) add("the column measurements.engine is missing");
  if (version >= 3 && !measurements.empty() && !measurements.count("host_ms")) {
    add("the column measurements.host_ms is missing");
  }
  UCUDNN_TRY_ASSIGN(const auto key, columns_of(db, kIndexColumns, "measurements_key"));
  if (!key.empty() && !key.count("engine")) add("the index measurements_key does not hold the engine");
  UCUDNN_TRY_ASSIGN(const auto coverage, columns_of(db, kTableColumns, "coverage"));
  const auto candidates = coverage.find("candidates");
  if (!coverage.empty() && (candidates == coverage.end() || candidates->second == 0)) {
    add("the primary key of coverage does not hold the column candidates");
  }
  return problem;
}

}  // namespace

Status BenchmarkDatabase::verify() {
  std::string problem;
  auto done = transaction(false, [&]() -> Status {
    problem.clear();
    sqlite3* db = db_.get();
    UCUDNN_TRY_ASSIGN(Statement check, Statement::prepare(db, "PRAGMA integrity_check"));
    int rc;
    while ((rc = check.step()) == SQLITE_ROW) {
      const std::string line = check.column_text(0);
      if (line != "ok") problem += (problem.empty() ? "" : "; ") + line;
    }
    if (rc != SQLITE_DONE) return Error{"the integrity check could not finish: " + check.error(rc)};
    if (!problem.empty()) return Status::success();
    UCUDNN_TRY_ASSIGN(const int version, read_schema_version(db));
    // Older versions are read as they are where the file was opened read-only (a writable open
    // upgrades them).
    if (version < kOldestSchemaVersion || version > kSchemaVersion) {
      problem = "schema version " + std::to_string(version) + ", expected " + std::to_string(kSchemaVersion);
      return Status::success();
    }
    // Every table and index of the schema, by name: a file that lost one is not a database the
    // library can use, whatever its integrity.
    UCUDNN_TRY_ASSIGN(Statement objects, Statement::prepare(db, "SELECT type, name FROM sqlite_master"));
    std::set<std::string> present;
    while ((rc = objects.step()) == SQLITE_ROW) present.insert(objects.column_text(0) + " " + objects.column_text(1));
    if (rc != SQLITE_DONE) return step_error(objects, rc);
    for (const char* wanted : {"table meta", "table measurements", "table coverage", "index measurements_key"}) {
      if (!present.count(wanted)) problem += std::string(problem.empty() ? "" : "; ") + "the " + wanted + " is missing";
    }
    UCUDNN_TRY_ASSIGN(const std::string columns, added_column_problems(db, version));
    if (!columns.empty()) problem += (problem.empty() ? "" : "; ") + columns;
    return Status::success();
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': ");
  if (!problem.empty()) return Error{"benchmark database '" + path_ + "' failed verification: " + problem};
  return Status::success();
}

}  // namespace ucudnn
