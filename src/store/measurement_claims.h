#pragma once
// Claims on measuring a kernel, shared by the processes that use one database (the ranks of a job):
// the first to need a kernel's rows takes its claim and benchmarks it, the others wait for the rows
// it stores. A claim is a file in `<database file>.claims/`, created exclusively (O_EXCL: atomic on
// local file systems and on NFS from version 3), holding its holder's host, PID namespace and
// process id; the holder removes it once its rows are stored (runtime/row_gatherer.cpp).

#include <string>

namespace ucudnn::store {

enum class ClaimOutcome {
  kTaken,        ///< this process holds the claim: it measures, then releases
  kHeld,         ///< another process holds it
  kUnavailable,  ///< no claim can be made (the folder cannot be created or written): measure alone
};

class MeasurementClaims {
 public:
  /// Claims beside the database file `database_file`.
  explicit MeasurementClaims(const std::string& database_file);

  /// Takes the claim on `what` (any text naming the work: it is hashed into the file name).
  ClaimOutcome try_take(const std::string& what);
  /// Whether any process holds the claim on `what` now.
  bool held(const std::string& what) const;
  /// Removes this process's claim on `what`.
  void release(const std::string& what);
  /// Removes the claim on `what` where its holder is known gone: a process of this host that no
  /// longer runs, or a file that names no holder. Returns whether it did.
  bool clear_if_orphaned(const std::string& what);

  const std::string& folder() const { return folder_; }
  /// The claim file of `what`.
  std::string file_of(const std::string& what) const;

 private:
  std::string folder_;
};

/// This process's name in a claim: "host#pid-namespace pid" ("host pid" where /proc is not there).
std::string claim_holder();

}  // namespace ucudnn::store
