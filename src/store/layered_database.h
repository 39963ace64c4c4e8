#pragma once
// Benchmark databases in layers, as MIOpen's find-db puts a read-only system database installed
// with the library under each user's writable one: one optional writable user database
// (UCUDNN_DATABASE) over zero or more system databases (UCUDNN_SYSTEM_DATABASES), each opened
// read-only and never created.
//
// A lookup asks the user database first, then each system database in the order listed, and
// answers the first whose rows of the kind are complete for the workspace limit asked; a layer
// whose bound is lower is passed over, so a user database that measured a kernel under a small
// limit does not hide a system database that covers a larger one. A layer that fails a lookup is
// warned about once and the next is asked. New rows go to the user database only.
//
// A system database that cannot be opened (missing, not a ucudnn database, from a newer ucudnn)
// is skipped with one warning naming the file and why; the others are used. A system database in
// rollback-journal mode is read in place with shared locks; one in WAL mode that no process has
// open is copied into memory by every process that opens it (store/database.h): keep system
// databases in a rollback-journal mode (`ucudnn db merge` writes them in mode delete).
//
// A DatabaseLayers never changes once made (with_user and with_system make new ones), so a plan
// being built keeps the layers it began with; lookups and stores are thread-safe, as
// BenchmarkDatabase's are.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/candidate_kinds.h"
#include "core/conv_key.h"
#include "core/device_identity.h"
#include "core/expected.h"
#include "core/measurement.h"
#include "store/database.h"

namespace ucudnn::store {

class DatabaseLayers {
 public:
  using Database = std::shared_ptr<BenchmarkDatabase>;

  /// No layer at all: lookups find nothing, store() answers that nothing is writable.
  DatabaseLayers() = default;
  /// `user` (null: none) over `system`, looked up in that order; null system entries are dropped.
  DatabaseLayers(Database user, std::vector<Database> system);

  /// The system databases at `paths`, in order, each opened read-only without creating it. A
  /// file that cannot be opened is left out with one warning ("skipping system benchmark database
  /// 'PATH': WHY"), which is also appended to `*skipped` where given.
  static std::vector<Database> open_system(const std::vector<std::string>& paths,
                                           std::vector<std::string>* skipped = nullptr);

  /// The same system layers under another user database (null: none).
  DatabaseLayers with_user(Database user) const;
  /// The same user database over other system layers.
  DatabaseLayers with_system(std::vector<Database> system) const;

  const Database& user() const { return user_; }
  const std::vector<Database>& system() const { return system_; }
  /// Whether there is no layer to look in.
  bool empty() const { return !user_ && system_.empty(); }
  /// Whether store() can write: a user database that is not read-only.
  bool writable() const { return user_ && !user_->read_only(); }
  /// The user database's path ("" for none).
  std::string user_path() const;
  /// Every layer's path, in lookup order: the user database's first, where there is one.
  std::vector<std::string> paths() const;

  /// The rows of `kind` of one micro-batch kernel (ConvKey::with_batch(s)) on a device, from the
  /// first layer whose bound for them is at least `workspace_limit`; nullopt where none is.
  std::optional<KernelLookup> lookup(const DeviceIdentity& identity, const ConvKey& micro_key, CandidateKind kind,
                                     std::size_t workspace_limit) const;

  /// Stores rows as BenchmarkDatabase::store does, in the user database only; an error where
  /// there is none (the system databases are read-only) or it is read-only.
  Status store(const DeviceIdentity& identity, const ConvKey& micro_key, CandidateKind kind, std::size_t measured_up_to,
               const std::vector<Measurement>& rows) const;

 private:
  Database user_;
  std::vector<Database> system_;
};

}  // namespace ucudnn::store
