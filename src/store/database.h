#pragma once
// The benchmark database: an SQLite file that processes, threads and hosts share (over NFS too).
//
// Schema (version kSchemaVersion, in table `meta`): `measurements` holds every measured row, not
// only winners, keyed by the device identity, the op, the layer signature (every field of the
// convolution but N; ConvKey::layer_signature), the micro-batch size, the algorithm and the math
// type (a UNIQUE index); `coverage` records for each (identity, op, layer, micro-batch) the
// workspace bound up to which its rows are complete. Writes are transactions with bound
// parameters; an existing row is never replaced (ON CONFLICT DO NOTHING), a coverage bound only
// raised.
//
// Opening never damages a file: a file that is not an SQLite database (or is corrupt) is refused
// untouched, with nothing created beside it; a database from a newer schema is refused, an older
// one is migrated, and a file the process cannot write is opened read-only (lookups work, store()
// answers read_only). A write that a killed process left in a hot rollback journal is rolled
// back, as SQLite does on any open, where this process may write the file, else the error names
// the journal; a half-written file is never read as if it were whole. A journal mode asked for
// is the journal mode used, or open() fails saying so. Paths may hold any character ('?', '#',
// '%' included). Busy databases are waited for with a timeout and backoff. Thread-safe: one
// connection per object, serialised by a mutex; several objects and processes may share the
// file.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/conv_key.h"
#include "core/conv_op.h"
#include "core/device_identity.h"
#include "core/expected.h"
#include "core/journal_mode.h"
#include "core/measurement.h"
#include "store/sqlite.h"

namespace ucudnn {

inline constexpr int kSchemaVersion = 1;

/// The mode kAuto picks for a path: kDelete on network file systems (NFS, SMB/CIFS, Lustre, GPFS,
/// CephFS, 9P, FUSE), kWal elsewhere.
JournalMode journal_mode_for(const std::string& path);

/// The current time in UTC, ISO 8601 ("2026-11-22T14:05:00Z"): what `measured_at` holds.
std::string utc_timestamp();

/// One stored row, with everything that identifies it.
struct StoredRow {
  DeviceIdentity identity;
  ConvOp op = ConvOp::kForward;
  std::string layer;  ///< ConvKey::layer_signature()
  Measurement measurement;
  std::string measured_at;  ///< UTC, ISO 8601
};

struct DatabaseStats {
  long long rows = 0;
  long long kernels = 0;  ///< distinct (op, layer) pairs
  std::vector<std::string> gpus;
  std::vector<int> cudnn_versions;
};

class BenchmarkDatabase {
 public:
  struct Options {
    JournalMode journal = JournalMode::kAuto;
    bool create = true;       ///< create the file if missing
    bool read_only = false;   ///< never write, even if the file is writable
    int busy_timeout_ms = 60000;
  };

  /// Opens (or creates) the database at `path`. Errors name the file and the problem.
  static Expected<std::unique_ptr<BenchmarkDatabase>> open(const std::string& path, const Options& options);
  static Expected<std::unique_ptr<BenchmarkDatabase>> open(const std::string& path) { return open(path, Options{}); }
  ~BenchmarkDatabase();  ///< closes the connection (in database.cpp: callers need not link SQLite)
  BenchmarkDatabase(const BenchmarkDatabase&) = delete;
  BenchmarkDatabase& operator=(const BenchmarkDatabase&) = delete;

  const std::string& path() const { return path_; }
  bool read_only() const { return read_only_; }
  JournalMode journal_mode() const { return journal_; }

  /// The rows and coverage bound of one micro-batch kernel (ConvKey::with_batch(s)) on a device.
  struct Lookup {
    std::vector<Measurement> rows;
    std::size_t measured_up_to = 0;
  };
  Expected<std::optional<Lookup>> lookup(const DeviceIdentity& identity, const ConvKey& micro_key);

  /// Stores rows of one micro-batch kernel and raises its coverage bound, in one transaction.
  Status store(const DeviceIdentity& identity, const ConvKey& micro_key, std::size_t measured_up_to,
               const std::vector<Measurement>& rows);
  /// Stores many rows in one transaction (imports) and raises the coverage bound of every kernel
  /// they name to `measured_up_to` (default: complete for any limit); returns how many rows were new.
  Expected<long long> store_rows(const std::vector<StoredRow>& rows, std::size_t measured_up_to = SIZE_MAX);

  Expected<std::vector<StoredRow>> all_rows();
  Expected<DatabaseStats> stats();
  /// PRAGMA integrity_check plus the schema checks (version, every table and index); the error
  /// says what is wrong.
  Status verify();

 private:
  BenchmarkDatabase() = default;
  /// Runs `body` inside a transaction (BEGIN IMMEDIATE for writes), retrying the whole
  /// transaction with backoff while another connection holds the lock.
  Status transaction(bool write, const std::function<Status()>& body);
  /// Checks that the file is ours, sets (and confirms) the journal mode and synchronous level of
  /// a writable connection, and creates or migrates the schema.
  Status prepare_for_writing(JournalMode requested);
  Status initialise_schema();

  std::string path_;
  bool read_only_ = false;
  JournalMode journal_ = JournalMode::kDelete;
  int busy_timeout_ms_ = 60000;
  std::mutex mutex_;
  SqliteConnection db_;  ///< closed when the object goes; every statement is finalised before
};

}  // namespace ucudnn
