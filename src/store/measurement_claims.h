#pragma once
// Claims on measuring a kernel, shared by the processes that use one database (the ranks of a job):
// the first to need a kernel's rows takes its claim and benchmarks it, the others wait for the rows
// it stores (runtime/row_gatherer.cpp).
//
// A claim is a lock, not a file's existence: the holder keeps an open file description of
// `<database file>.claims/<hash>` with a write lock over the file (an OFD lock, which the kernel
// drops when the holder dies, however it dies, and which excludes other threads of the same
// process too). So a dead holder's claim is free at once, with no reading of process ids, and the
// taking is one atomic step of the kernel's (or of the NFS lock manager's, on the same terms as the
// database's own locks). The file holds its holder's name ("host#pid-namespace pid") for people.
// Releasing unlinks the file while still locked; a waiter that opened it before then finds, once
// it has the lock, that the name no longer leads to its file, and tries again.
//
// Nothing planted in the folder can hang or fool a member: a claim is opened with O_NOFOLLOW and
// O_NONBLOCK and taken only where it is a regular file; anything else at a claim's name (a link, a
// FIFO, a socket) is removed as not a claim. The folder exists while a claim is held (made by the
// first taker, removed by the last releaser where it is empty); a killed holder leaves its file,
// which the next taker locks and removes as its own.

#include <map>
#include <string>

namespace ucudnn::store {

enum class ClaimOutcome {
  kTaken,        ///< this process holds the claim: it measures, then releases
  kHeld,         ///< another holder has it
  kUnavailable,  ///< no claim can be made (the folder cannot be created or written, no locks): measure alone
};

class MeasurementClaims {
 public:
  /// Claims beside the database file `database_file`.
  explicit MeasurementClaims(const std::string& database_file);
  /// Releases every claim still held.
  ~MeasurementClaims();
  MeasurementClaims(const MeasurementClaims&) = delete;
  MeasurementClaims& operator=(const MeasurementClaims&) = delete;

  /// Takes the claim on `what` (any text naming the work: it is hashed into the file name). A
  /// claim this object holds already is kHeld: work is never claimed twice.
  ClaimOutcome try_take(const std::string& what);
  /// Whether any holder (this process included, through another MeasurementClaims) has the claim
  /// on `what` now.
  bool held(const std::string& what) const;
  /// Gives up this object's claim on `what` (nothing where it holds none).
  void release(const std::string& what);

  const std::string& folder() const { return folder_; }
  /// The claim file of `what`.
  std::string file_of(const std::string& what) const;

 private:
  std::string folder_;
  std::map<std::string, int> held_;  ///< work -> the descriptor whose lock is the claim
};

/// This process's name in a claim: "host#pid-namespace pid" ("host pid" where /proc is not there).
std::string claim_holder();

}  // namespace ucudnn::store
