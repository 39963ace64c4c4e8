#pragma once
// The benchmark databases a plan builder reads and writes: the user database (UCUDNN_DATABASE,
// new rows go to it) over the read-only system databases (UCUDNN_SYSTEM_DATABASES), each opened
// at the paths it was built with on first use unless set before. Thread-safe; the layers are replaced
// whole, never changed in place, so a reader keeps a consistent view.

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/journal_mode.h"
#include "runtime/measurement_source.h"
#include "store/layered_database.h"

namespace ucudnn::runtime {

/// The databases as one device sees them: rows are keyed by the device's identity, so without an
/// identity the databases are not used.
struct DeviceDatabase {
  std::shared_ptr<const store::DatabaseLayers> db;
  DeviceIdentity identity;
  bool usable() const { return db && !db->empty(); }
  bool writable() const { return db && db->writable(); }
};

class PlanDatabases {
 public:
  /// The databases at `user_path` (empty: none) over those at `system_paths`, opened on first use
  /// (unless set before), with `journal` (UCUDNN_DATABASE_JOURNAL) as every user database's.
  PlanDatabases(std::string user_path, std::vector<std::string> system_paths, JournalMode journal);
  /// Exactly `user` (null: none) over `system`; a user database set later gets the automatic journal.
  PlanDatabases(std::shared_ptr<store::BenchmarkDatabase> user,
                std::vector<std::shared_ptr<store::BenchmarkDatabase>> system);

  /// Uses the database at `path` from now on (empty: none) as the user database; the system
  /// databases stay. On error there is no user database.
  Status set_user(const std::string& path);
  /// The read-only system databases at `paths` from now on. A file that cannot be opened is
  /// skipped, with a warning; the error then names each one skipped, and the others are used.
  Status set_system(const std::vector<std::string>& paths);
  /// The user database over the system ones (never null), opened first where not configured.
  std::shared_ptr<const store::DatabaseLayers> layers();
  /// The layers as `device` sees them, its identity read through `source`.
  DeviceDatabase for_device(int device, MeasurementSource& source);

 private:
  std::mutex mutex_;
  std::shared_ptr<const store::DatabaseLayers> layers_ = std::make_shared<const store::DatabaseLayers>();
  bool user_configured_ = false;    ///< user_path_ opened, set_user called, or given
  bool system_configured_ = false;  ///< system_paths_ opened, set_system called, or given
  const std::string user_path_;
  const std::vector<std::string> system_paths_;
  const JournalMode journal_ = JournalMode::kAuto;
};

}  // namespace ucudnn::runtime
