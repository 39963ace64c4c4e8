#pragma once
// The benchmark database: an SQLite file that processes, threads and hosts share (over NFS too).
//
// Schema (version kSchemaVersion, in table `meta`): `measurements` holds every measured row, not
// only winners, keyed by the device identity, the op, the layer signature (every field of the
// convolution but N; ConvKey::layer_signature), the micro-batch size, the algorithm, the math
// type and the engine configuration id (a UNIQUE index; '' for a legacy algorithm, whose algo is
// then >= 0, while an engine row has algo -1). `coverage` records for each (identity, op, layer,
// micro-batch, kind of candidate) the workspace bound up to which the rows of that kind are
// complete: legacy algorithms and engines are measured, and complete, separately (`candidates`
// holds the CandidateKind value). Writes are transactions with bound parameters; an existing row
// is never replaced (ON CONFLICT DO NOTHING), a coverage bound only raised.
//
// Versions: 1 had neither the engine column nor the kind of coverage; 2 had no `host_ms` (the
// host's time to issue a call, 0 where not measured). An older file opened writable is upgraded
// to 3 in one transaction (rows kept; version 1's coverage becomes the legacy kind's, older rows
// get host_ms 0); if the upgrade fails it is rolled back and the file stays a valid older
// version. An older file opened read-only is read as it is: a version-1 file's legacy rows are
// found and its engine lookups find nothing; rows without host_ms read as 0. Files of a newer
// version are refused (ucudnn builds of schemas 1 and 2 refuse version-3 files the same way). A
// process of a schema-1 build that already had the file open when another
// upgraded it keeps using it and would read engine rows as algorithm -1: upgrade every process
// that shares a file together.
//
// Opening never damages a file: a file that is not an SQLite database (or is corrupt) is refused
// untouched, with nothing created beside it; a database from a newer schema is refused, an older
// one is migrated, and a file the process cannot write is opened read-only (lookups work, store()
// answers read_only). A write that a killed process left in a hot rollback journal is rolled
// back, as SQLite does on any open, where this process may write the file, else the error names
// the journal; a half-written file is never read as if it were whole. A journal mode asked for
// is the journal mode used, or open() fails saying so. Paths may hold any character ('?', '#',
// '%' included), and a link to the file (SQLite's journal, -wal and -shm live beside the real
// file); a link to nothing, a FIFO, a device or a socket is refused (store/database_path.h). A new
// file's mode is 0666 less the umask. A locked database is waited for, with backoff, at most
// busy_timeout_ms per open and per call; then the error says the lock was held. Thread-safe: one
// connection per object, serialised by a mutex; several objects and processes may share the
// file.
//
// Reading only (Options::read_only, as db export, stats and verify open it, or a file this
// process cannot write) changes no row and leaves nothing beside the file once closed (the hot
// journal above aside). A rollback-journal file is read in place with locks (readers make no
// journal). A WAL file is read in place with locks where this process may write it: SQLite makes
// a -wal and a -shm while it is open (memory does not grow with the file), and the close hands
// them back as a writer would (a checkpoint, no row changed) unless another connection still has
// the file open, which then removes them itself. A WAL file this process may not write, and that
// no process has open (no -wal, no -shm: its main file holds every committed row), is copied into
// memory: a consistent snapshot as large as the file, that does not see rows others store later
// (nothing could remove side files made beside it). One that a writer has open is read with
// locks through the writer's -wal and -shm, which stay the writer's.
//
// Parts, one job each: store/columns.h (every column, named once), schema (CREATE, upgrades,
// schema checks), database_path (the real file, its mode, why it cannot be written), file_state
// and file_probe (the file before it is opened), connect (connections, snapshots), lock_wait (one
// deadline for the waits of an operation), journal (journal mode), rows (rows in and out), inspect
// (stats, verify); this class composes them.

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/candidate_kinds.h"
#include "core/conv_key.h"
#include "core/device_identity.h"
#include "core/expected.h"
#include "core/journal_mode.h"
#include "core/measurement.h"
#include "store/database_types.h"
#include "store/sqlite.h"

namespace ucudnn::store {

class RowReader;  // store/rows.h

/// The current time in UTC, ISO 8601 ("2026-11-22T14:05:00Z"): what `measured_at` holds.
std::string utc_timestamp();

class BenchmarkDatabase {
 public:
  struct Options {
    /// kAuto: a new file gets the mode its file system suits, an existing one keeps its own
    /// (store/journal.h); another mode is switched to, or open() fails saying so.
    JournalMode journal = JournalMode::kAuto;
    bool create = true;       ///< create the file if missing
    bool read_only = false;   ///< never write, even if the file is writable
    int busy_timeout_ms = 60000;
    /// What asked for `journal`, as a failed switch names it: the variable, or a command's option.
    std::string journal_named_by = "UCUDNN_DATABASE_JOURNAL";
    /// Refuse a file that lacks a table, an index or a key column of its version (its unique
    /// index dropped, say, so that duplicate rows could reach plans). Off only for `db verify`,
    /// which opens such a file to say what is wrong with it.
    bool check_schema = true;
    /// What messages call the file, where not its path: a file made under a temporary name is
    /// named by the name it will have (tools/new_database.h).
    std::string shown_as{};
  };

  /// Opens (or creates) the database at `path`. Errors name the file and the problem.
  static Expected<std::unique_ptr<BenchmarkDatabase>> open(const std::string& path, const Options& options);
  static Expected<std::unique_ptr<BenchmarkDatabase>> open(const std::string& path) { return open(path, Options{}); }
  ~BenchmarkDatabase();  ///< closes the connection (in database.cpp: callers need not link SQLite)
  BenchmarkDatabase(const BenchmarkDatabase&) = delete;
  BenchmarkDatabase& operator=(const BenchmarkDatabase&) = delete;

  /// The path as the caller gave it (or Options::shown_as): what messages name.
  const std::string& path() const { return path_; }
  /// The real file: absolute, links resolved (where SQLite keeps its side files).
  const std::string& file() const { return file_; }
  bool read_only() const { return read_only_; }
  /// Why a read-only database is: "it was opened read-only", or what keeps this process from
  /// writing it (the file or folder, its mode and owner; a read-only mount).
  const std::string& read_only_reason() const { return read_only_reason_; }
  JournalMode journal_mode() const { return journal_; }

  /// The rows of one kind and that kind's coverage bound, of one micro-batch kernel
  /// (ConvKey::with_batch(s)) on a device; nullopt where that kind has no coverage row.
  using Lookup = KernelLookup;
  Expected<std::optional<Lookup>> lookup(const DeviceIdentity& identity, const ConvKey& micro_key, CandidateKind kind);

  /// Stores rows of one kind of one micro-batch kernel and raises that kind's coverage bound, in
  /// one transaction. A row of another kind (or an engine row without algo -1 and a valid engine
  /// id, a legacy row with a negative algo) is an error naming it, and nothing is stored.
  Status store(const DeviceIdentity& identity, const ConvKey& micro_key, CandidateKind kind, std::size_t measured_up_to,
               const std::vector<Measurement>& rows);
  /// Stores many rows in one transaction (imports) and raises the coverage bound of every
  /// (kernel, kind of candidate) they name to `measured_up_to` (default: complete for any limit);
  /// returns how many rows were new. A malformed row (as for store) stores nothing.
  Expected<long long> store_rows(const std::vector<StoredRow>& rows, std::size_t measured_up_to = SIZE_MAX);
  /// Where store_streamed_rows' rows come from: hands every row, from the first, to its argument
  /// and returns the first error, its own or its argument's. It may be called again, from the
  /// start, where another process held the write lock.
  using RowSource = std::function<Status(const std::function<Status(const StoredRow&)>&)>;
  /// store_rows for rows read as they are stored (`db import` of a large table): each row checked
  /// and inserted as it comes, all in one transaction, so that memory holds one row and an error
  /// anywhere, the source's or a row's, stores nothing. The source's errors are returned as it
  /// gave them.
  Expected<long long> store_streamed_rows(const RowSource& source, std::size_t measured_up_to = SIZE_MAX);

  /// Copies every row and every coverage bound of `source` into this database in one transaction
  /// (`db merge`): a row this one has is kept as it is, a bound only raised, each (kernel, kind
  /// of candidate) keeping the bound the source gives it. The source is read in one transaction
  /// and never written (open it read-only). A malformed source row or bound merges nothing; the
  /// same file as source and target is refused.
  Expected<MergeCounts> merge_from(BenchmarkDatabase& source);

  /// Every row, ordered by device, layer, op, micro-batch, algorithm, math type and engine.
  Expected<std::vector<StoredRow>> all_rows();
  /// Runs `body` in one read transaction with a reader of the rows (`db export`): every query it
  /// makes sees the same snapshot, and rows are read a layer at a time, not gathered. `body` may be
  /// run again, from the start, where another process held the lock. Its errors are returned as
  /// it gave them (the reader's name the database).
  Status read_rows(const std::function<Status(RowReader&)>& body);
  Expected<DatabaseStats> stats();
  /// PRAGMA integrity_check plus the schema checks (version, every table and index, the key
  /// columns of the version); the error says what is wrong. A version-1 file (read-only: a
  /// writable one is upgraded on open) passes with version 1's tables. What passed: the file's
  /// schema version and how many rows and coverage bounds were read.
  Expected<Verification> verify();

  /// Makes the file whole on its own and closes the connection: in WAL mode, a checkpoint that
  /// copies every committed page into the file and empties the -wal must complete (a full disk
  /// fails it, where a close would have left the rows in the -wal silently). What a file made
  /// under a temporary name needs before it is renamed (tools/new_database.h): its -wal would stay
  /// behind under the old name. The object can do nothing more, whatever the outcome.
  Status close_as_one_file();

 private:
  BenchmarkDatabase() = default;
  /// Runs `body` inside a transaction (BEGIN IMMEDIATE for writes), retrying the whole
  /// transaction with backoff while another connection holds the lock.
  Status transaction(bool write, const std::function<Status()>& body);
  /// Connects to the file, checks that it is ours, sets (and confirms) the journal mode and
  /// synchronous level, and creates or migrates the schema. A switch that other connections hold
  /// up is tried again with the connection closed meanwhile, until the busy timeout.
  Status prepare_for_writing(JournalMode requested, const std::string& named_by);
  Status initialise_schema();
  /// Refuses a file of `version` (>= 1) whose schema lacks a table, index or key column.
  Status check_schema(int version);

  /// Why a write must not start: the file that `file_` names now is not the one opened (renamed
  /// or deleted since, maybe replaced). Empty where it still is.
  std::string moved_since_opened() const;

  std::string path_;  ///< as the caller gave it: what messages name
  std::string file_;  ///< the real file, absolute, links resolved: what SQLite opens
  dev_t opened_device_ = 0;  ///< the file opened for writing (0: not opened for writing)
  ino_t opened_inode_ = 0;
  bool read_only_ = false;
  std::string read_only_reason_;
  bool check_schema_ = true;
  /// Opened read-only with locks on a WAL file this process may write: see the destructor.
  bool hand_back_side_files_ = false;
  JournalMode journal_ = JournalMode::kDelete;
  int busy_timeout_ms_ = 60000;
  std::mutex mutex_;
  SqliteConnection db_;  ///< closed when the object goes; every statement is finalised before
};

}  // namespace ucudnn::store
