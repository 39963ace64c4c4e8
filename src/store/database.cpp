#include "store/database.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <ctime>

#include "core/logging.h"
#include "store/columns.h"
#include "store/connect.h"
#include "store/database_path.h"
#include "store/file_probe.h"
#include "store/file_state.h"
#include "store/journal.h"
#include "store/lock_scope.h"
#include "store/lock_wait.h"
#include "store/rows.h"
#include "store/schema.h"

namespace ucudnn::store {

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

BenchmarkDatabase::~BenchmarkDatabase() {
  db_.reset();
  // A reader that used a writer's -wal and -shm and closes after it hands them back as the writer
  // would have: a writable connection that closes last checkpoints the -wal (no row changes) and
  // removes both; while another connection has the file open, it leaves them to that one.
  if (hand_back_side_files_) {
    const store::SideFiles side = store::side_files(file_);
    if (side.wal || side.shm) {
      auto writer = store::connect(file_, store::Access::kReadWriteExisting, 0);
      if (writer) (void)store::first_read(writer->get());
    }
  }
}

Expected<std::unique_ptr<BenchmarkDatabase>> BenchmarkDatabase::open(const std::string& path, const Options& options) {
  const std::string& shown = options.shown_as.empty() ? path : options.shown_as;
  const std::string where = "benchmark database '" + shown + "': ";
  // One wait for the whole open, however many of its steps meet another process's lock.
  const store::LockWaitDeadline within(store::lock_wait_end(options.busy_timeout_ms));
  auto file = store::resolve_database_file(path);
  if (!file) return file.error().prefixed(where);
  if (!file->exists && (!options.create || options.read_only))
    return Error{ErrorCode::kBadParam, where + "does not exist"};
  // Whether this process could write the file at all (a hot journal needs it), asked or not.
  const std::string refusal = store::why_not_writable(file->path, file->exists);
  const bool writable = refusal.empty() && !options.read_only;
  if (!file->exists) {
    if (!writable) return Error{ErrorCode::kStorage, where + "does not exist, and cannot be created: " + refusal};
    // A side file without its database: one renamed or deleted while a process had it open, which
    // may still be writing there. SQLite would take it for the new file's own (replaying another
    // database's pages into it, or failing with "disk I/O error"). Side files come after their
    // database: seen first, then the database, it is another process's new one (a job's processes
    // all create it at once), opened as it is.
    const store::SideFiles side = store::side_files(file->path);
    if ((side.journal || side.wal || side.shm) && ::access(file->path.c_str(), F_OK) != 0) {
      const std::string name = file->path + (side.wal ? "-wal" : side.shm ? "-shm" : "-journal");
      return Error{ErrorCode::kStorage,
                   where + "does not exist, but its side file '" + name +
                       "' does (left by a process that had the database open when it was renamed or deleted, and "
                       "may still be writing it): no new database is made beside it; remove its side files once no "
                       "process has them open (`fuser` tells)"};
    }
    file = store::create_database_file(*file);
    if (!file) return file.error().prefixed(where);
  }
  auto probed = store::probe_existing(file->path, refusal.empty(), options.busy_timeout_ms);
  if (!probed) return probed.error().prefixed(where);

  std::unique_ptr<BenchmarkDatabase> database(new BenchmarkDatabase());
  database->path_ = shown;
  database->file_ = file->path;
  database->busy_timeout_ms_ = options.busy_timeout_ms;
  database->read_only_ = !writable;
  database->read_only_reason_ = options.read_only ? "it was opened read-only" : refusal;
  database->check_schema_ = options.check_schema;
  if (writable) {
    auto usable = store::side_files_writable(file->path);
    if (!usable) return usable.error().prefixed(where);
    auto prepared = database->prepare_for_writing(options.journal, options.journal_named_by);
    if (!prepared) return prepared.error().prefixed(where);
    struct stat opened {};
    if (stat(file->path.c_str(), &opened) == 0) {
      database->opened_device_ = opened.st_dev;
      database->opened_inode_ = opened.st_ino;
    }
    const std::string local_locks = database->opened_inode_ ? store::host_local_locks(opened.st_dev) : "";
    if (!local_locks.empty()) {
      warn_once("local locks " + file->path,
                where + local_locks + ": processes on other hosts writing it at the same time can damage it "
                        "(give each host its own database and merge them: docs/database.md, Shared file systems)");
    }
  } else {
    // Reading only creates nothing beside the file: a WAL file that no process has open is read
    // as a snapshot in memory. (A connection with locks would create a -wal and a -shm, which a
    // read-only connection cannot remove when it closes; a -shm left with the file's read-only
    // permissions would also break writes once the file is writable again.)
    auto kind = store::file_kind(file->path);
    if (!kind) return kind.error().prefixed(where);
    // A WAL file this process may write is read in place with locks: its -wal and -shm are handed
    // back when the database closes (the destructor), and memory does not grow with the file. One
    // it may not write is copied into memory: nothing could remove the side files afterwards.
    const store::IdleWal idle = refusal.empty() ? store::IdleWal::kWithLocks : store::IdleWal::kCopyToMemory;
    auto connection =
        store::connect_for_reading(file->path, *kind, idle, refusal.empty(), options.busy_timeout_ms);
    if (!connection) return connection.error().prefixed(where);
    database->db_ = std::move(connection).value();
    database->hand_back_side_files_ = refusal.empty() && *kind == store::FileKind::kWal;
    auto checked = database->transaction(false, [&]() -> Status {
      UCUDNN_TRY_ASSIGN(const int version, store::readable_version(database->db_.get()));
      return database->check_schema(version);
    });
    if (!checked) return checked.error().prefixed(where);
  }
  return database;
}

Status BenchmarkDatabase::prepare_for_writing(JournalMode requested, const std::string& named_by) {
  const auto deadline = store::lock_wait_end(busy_timeout_ms_);
  store::RetryBackoff backoff;
  while (true) {
    // The file exists by now (created by open() where it did not): never created again here.
    auto connection = store::connect(file_, store::Access::kReadWriteExisting, busy_timeout_ms_);
    if (!connection) return connection.error();
    db_ = std::move(connection).value();
    // Nothing, not even the journal mode, changes before the file is known to be ours (the probe
    // said so, but another process may have replaced the file since).
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const int rc = store::first_read(db_.get());
      if (rc != SQLITE_OK && !sqlite_busy(rc))
        return Error{ErrorCode::kStorage, "refused and left untouched: " + sqlite_error(db_.get(), rc)};
    }
    int version = 0;
    auto checked = transaction(false, [&]() -> Status {
      UCUDNN_TRY_ASSIGN(version, store::read_schema_version(db_.get()));
      if (version > kSchemaVersion)
        return Error{ErrorCode::kBadParam, "its schema version is newer than this ucudnn's"};
      return check_schema(version);
    });
    if (!checked) return checked.error().prefixed("refused and left untouched: ");
    // The real file's file system: a link on a local disk may lead to NFS, where WAL is unsafe.
    UCUDNN_TRY_ASSIGN(journal_, store::resolve_journal_mode(db_.get(), requested, version == 0, file_));
    UCUDNN_TRY_ASSIGN(const std::string stays, store::try_journal_mode(db_.get(), journal_));
    if (stays.empty()) return initialise_schema();
    if (std::chrono::steady_clock::now() >= deadline) {
      return Error{ErrorCode::kStorage, std::string("cannot set journal mode '") + store::journal_mode_name(journal_) +
                                            "' (" + named_by + "): " + stays +
                                            "; close them, or use the mode the others use"};
    }
    // Closed while waiting: another process switching the same file needs it to itself too.
    db_.reset();
    backoff.pause();
  }
}

Status BenchmarkDatabase::initialise_schema() {
  return transaction(true, [&]() -> Status {
    UCUDNN_TRY_ASSIGN(const int version, store::read_schema_version(db_.get()));
    if (version > kSchemaVersion) return Error{ErrorCode::kBadParam, "its schema version is newer than this ucudnn's"};
    Status done = store::create_or_upgrade(db_.get(), version);
    if (!done && version >= 1 && version < kSchemaVersion) {
      const std::string from = std::to_string(version);
      return done.error().prefixed("cannot upgrade it from schema version " + from + " to " +
                                   std::to_string(kSchemaVersion) + " (it stays a valid version " + from + "): ");
    }
    return done;
  });
}

namespace {

// SQLite's "database or disk is full" and "disk I/O error": how a write fails for want of space.
bool failed_for_space(int code) { return (code & 0xff) == SQLITE_FULL || (code & 0xff) == SQLITE_IOERR; }

// Which space ran out, where the system says.
std::string space_that_ran_out(int code, int system_error) {
  if (system_error == EFBIG) return " (the file would pass this process's file size limit, ulimit -f)";
  if (system_error == ENOSPC || (code & 0xff) == SQLITE_FULL) return " (the disk is full: free space first)";
  if (system_error == EDQUOT) return " (the disk quota is used up)";
  return "";
}

// A write that failed for want of space (a full disk, a file size limit) leaves SQLite's pager in
// its error state, the file grown and its hot journal beside it, which every later reader must roll
// back and one who may not write the file cannot (the users of a system database). Reading once
// rolls it back now, while this process may write it. Returns what the message must add.
std::string roll_back_what_is_left(sqlite3* db, const std::string& file) {
  (void)store::first_read(db);
  if (!store::side_files(file).journal) return "";
  return "; its unfinished write could not be rolled back and is left in '" + file +
         "-journal': once there is space, any ucudnn db command run by a user who may write the file rolls it back "
         "(until then, users who may not write it cannot read it)";
}

}  // namespace

Status BenchmarkDatabase::check_schema(int version) {
  if (!check_schema_ || version == 0) return Status::success();
  UCUDNN_TRY_ASSIGN(const std::string problems, store::schema_problems(db_.get(), version));
  if (problems.empty()) return Status::success();
  // Without its unique index, say, a file takes duplicate rows, and a lookup would plan with
  // whichever came first: never read, never written.
  return Error{ErrorCode::kBadParam,
               "its schema was changed outside ucudnn (" + problems +
                   "): refused, as its rows could not be trusted to be one per key; `ucudnn db verify` names every "
                   "problem (docs/database.md, Damaged files)"};
}

std::string BenchmarkDatabase::moved_since_opened() const {
  if (opened_inode_ == 0) return "";
  struct stat now {};
  if (stat(file_.c_str(), &now) != 0) {
    return errno == ENOENT ? "'" + file_ + "' was renamed or deleted after this process opened it" : "";
  }
  if (now.st_dev == opened_device_ && now.st_ino == opened_inode_) return "";
  return "'" + file_ + "' is another file than the one this process opened (renamed or deleted since, and replaced)";
}

Status BenchmarkDatabase::transaction(bool write, const std::function<Status()>& body) {
  std::lock_guard<std::mutex> lock(mutex_);
  // SQLite would go on writing to the file it has open, which no other process finds at that
  // name any more (WAL mode; rollback mode refuses, calling it read-only): refuse, naming why.
  if (write) {
    const std::string moved = moved_since_opened();
    if (!moved.empty()) return Error{ErrorCode::kStorage, moved + "; nothing was written to either file"};
  }
  sqlite3* db = db_.get();
  // Every wait of the transaction, its commit's included, ends by one deadline.
  const auto deadline = store::lock_wait_end(busy_timeout_ms_);
  const store::LockWaitDeadline within(deadline);
  store::RetryBackoff backoff;
  while (true) {
    auto begun = sqlite_exec(db, write ? "BEGIN IMMEDIATE" : "BEGIN");
    std::string failure;
    ErrorCode kind = ErrorCode::kStorage;  // the body's own kind where the body failed
    int code = SQLITE_OK;
    if (begun) {
      auto result = body();
      if (result) {
        auto committed = sqlite_exec(db, "COMMIT");
        if (committed) return Status::success();
        failure = committed.message();
      } else {
        failure = result.message();
        kind = result.error().code;
      }
      code = sqlite3_extended_errcode(db);  // before ROLLBACK replaces it
      const bool no_space = failed_for_space(code);
      if (no_space) failure += space_that_ran_out(code, sqlite3_system_errno(db));
      if (!sqlite3_get_autocommit(db)) (void)sqlite_exec(db, "ROLLBACK");
      if (write && no_space) failure += roll_back_what_is_left(db, file_);
    } else {
      failure = begun.message();
      code = sqlite3_extended_errcode(db);
    }
    // Retry only lock contention, with exponential backoff and jitter; give up at the deadline.
    // A statement left running is a bug here, not contention: fail at once.
    if (sqlite3_next_stmt(db, nullptr) != nullptr)
      return Error{ErrorCode::kInternal, failure + " (a statement is still running)"};
    if (!sqlite_busy(code)) return Error{kind, failure};
    if (std::chrono::steady_clock::now() >= deadline) return store::still_locked_error(busy_timeout_ms_);
    backoff.pause();
  }
}

Status BenchmarkDatabase::close_as_one_file() {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string where = "benchmark database '" + path_ + "': ";
  if (!db_) return Error{ErrorCode::kInternal, where + "closed already"};
  if (!read_only_ && journal_ == JournalMode::kWal) {
    const store::LockWaitDeadline within(store::lock_wait_end(busy_timeout_ms_));
    const int rc = sqlite3_wal_checkpoint_v2(db_.get(), nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
    if (rc != SQLITE_OK) {
      const int code = sqlite3_extended_errcode(db_.get());
      std::string why = sqlite_error(db_.get(), rc);
      if (failed_for_space(code)) why += space_that_ran_out(code, sqlite3_system_errno(db_.get()));
      db_.reset();
      return Error{ErrorCode::kStorage, where + "its rows could not be copied from its -wal into the file: " + why};
    }
  }
  db_.reset();
  // A clean close removes the -wal; one left with content holds rows the file lacks.
  struct stat wal {};
  if (::stat((file_ + "-wal").c_str(), &wal) == 0 && wal.st_size > 0) {
    return Error{ErrorCode::kStorage, where + "its -wal still holds rows after the last connection closed"};
  }
  return Status::success();
}

Expected<std::optional<BenchmarkDatabase::Lookup>> BenchmarkDatabase::lookup(const DeviceIdentity& identity,
                                                                             const ConvKey& micro_key,
                                                                             CandidateKind kind) {
  const store::KernelKey kernel{identity, micro_key.op, micro_key.layer_signature(), micro_key.batch()};
  std::optional<Lookup> found;
  auto done = transaction(false, [&]() -> Status {
    found.reset();
    // A read-only file without ucudnn's tables (an empty file) simply has nothing.
    UCUDNN_TRY_ASSIGN(const int version, store::readable_version(db_.get()));
    if (version == 0) return Status::success();
    UCUDNN_TRY_ASSIGN(found, store::look_up(db_.get(), version, kernel, kind));
    return Status::success();
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': lookup failed: ");
  return found;
}

Status BenchmarkDatabase::store(const DeviceIdentity& identity, const ConvKey& micro_key, CandidateKind kind,
                                std::size_t measured_up_to, const std::vector<Measurement>& rows) {
  if (read_only_)
    return Error{ErrorCode::kStorage, "benchmark database '" + path_ + "' is read-only: " + read_only_reason_};
  auto checked = store::check_rows(rows, micro_key.op, kind);
  if (!checked) return checked.error().prefixed("benchmark database '" + path_ + "': nothing stored: ");
  const store::KernelKey kernel{identity, micro_key.op, micro_key.layer_signature(), micro_key.batch()};
  const std::string now = utc_timestamp();
  auto done = transaction(true, [&]() -> Status {
    UCUDNN_TRY_ASSIGN(store::RowWriter writer, store::RowWriter::prepare(db_.get()));
    for (const Measurement& m : rows) {
      UCUDNN_TRY(writer.insert(StoredRow{identity, micro_key.op, kernel.layer, m, now}));
    }
    return writer.raise_coverage(kernel, kind, measured_up_to);
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': store failed: ");
  return Status::success();
}

Expected<long long> BenchmarkDatabase::store_rows(const std::vector<StoredRow>& rows, std::size_t measured_up_to) {
  if (read_only_)
    return Error{ErrorCode::kStorage, "benchmark database '" + path_ + "' is read-only: " + read_only_reason_};
  auto checked = store::check_rows(rows);
  if (!checked) return checked.error().prefixed("benchmark database '" + path_ + "': nothing stored: ");
  long long inserted = 0;
  auto done = transaction(true, [&]() -> Status {
    UCUDNN_TRY_ASSIGN(store::RowWriter writer, store::RowWriter::prepare(db_.get()));
    for (const StoredRow& row : rows) {
      UCUDNN_TRY(writer.insert(row));
      const store::KernelKey kernel{row.identity, row.op, row.layer, row.measurement.micro_batch};
      UCUDNN_TRY(writer.raise_coverage(kernel, row.measurement.candidate.kind, measured_up_to));
    }
    inserted = writer.inserted();
    return Status::success();
  });
  if (!done) return done.error().prefixed("benchmark database '" + path_ + "': store failed: ");
  return inserted;
}

}  // namespace ucudnn::store
