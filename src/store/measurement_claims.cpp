#include "store/measurement_claims.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>

#include "store/file_lock.h"

namespace ucudnn::store {
namespace {

// FNV-1a, 64 bits: the same name for the same work in every process and build.
std::string hashed(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char name[17];
  std::snprintf(name, sizeof(name), "%016llx", static_cast<unsigned long long>(h));
  return name;
}

// Tries of one take: each lost race (a releaser's unlink, a folder removed, a planted file
// replaced) costs one. More in a row means others keep taking and releasing the claim: held, for
// now (the caller tries again, within UCUDNN_JOB_WAIT), never a reason to measure unclaimed.
constexpr int kAttempts = 16;

// Where a process id means this process: the host and the PID namespace (said in the claim for
// people; the lock, not the text, is the claim).
std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') std::snprintf(name, sizeof(name), "unknown-host");
  char space[64] = {};
  const ssize_t length = readlink("/proc/self/ns/pid", space, sizeof(space) - 1);  // "pid:[4026531836]"
  if (length <= 0) return name;
  return std::string(name) + "#" + std::string(space, static_cast<std::size_t>(length));
}

// Whether a lock is held on `file` by another open file description; false where it cannot be
// told (not there, not readable, not a regular file).
bool locked_by_another(const std::string& file) {
  const int fd = open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  const bool locked = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && locked_elsewhere(fd, 0);
  close(fd);
  return locked;
}

enum class Folder { kReady, kGone, kRefused };

// The folder, made where missing: kRefused where it cannot be, or where its name is something
// else (a file, a link: nothing of the user's is written through); kGone where the last releaser
// removed it between the two looks (try again).
Folder folder_ready(const std::string& folder) {
  if (mkdir(folder.c_str(), 0777) == 0) return Folder::kReady;
  if (errno != EEXIST) return Folder::kRefused;
  struct stat st {};
  if (lstat(folder.c_str(), &st) != 0) return errno == ENOENT ? Folder::kGone : Folder::kRefused;
  return S_ISDIR(st.st_mode) ? Folder::kReady : Folder::kRefused;
}

}  // namespace

std::string claim_holder() { return host_name() + " " + std::to_string(static_cast<long>(getpid())); }

MeasurementClaims::MeasurementClaims(const std::string& database_file) : folder_(database_file + ".claims") {}

MeasurementClaims::~MeasurementClaims() {
  while (!held_.empty()) release(held_.begin()->first);
}

std::string MeasurementClaims::file_of(const std::string& what) const { return folder_ + "/" + hashed(what); }

bool MeasurementClaims::held(const std::string& what) const {
  return held_.count(what) != 0 || locked_by_another(file_of(what));
}

ClaimOutcome MeasurementClaims::try_take(const std::string& what) {
  if (held_.count(what)) return ClaimOutcome::kHeld;
  const std::string file = file_of(what);
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    const Folder folder = folder_ready(folder_);
    if (folder == Folder::kRefused) return ClaimOutcome::kUnavailable;
    if (folder == Folder::kGone) continue;
    struct stat st {};
    if (lstat(file.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      // Not a claim: a link, FIFO or socket planted at a claim's name is removed, never opened.
      if (S_ISDIR(st.st_mode) || (unlink(file.c_str()) != 0 && errno != ENOENT)) return ClaimOutcome::kUnavailable;
      continue;
    }
    // O_NONBLOCK: a FIFO swapped in since the check above cannot hold the open.
    const int fd = open(file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd < 0) {
      if (errno == ENOENT || errno == ELOOP) continue;  // the folder removed by a releaser, a link swapped in
      if (errno == EACCES && locked_by_another(file)) return ClaimOutcome::kHeld;  // another user's, held
      return ClaimOutcome::kUnavailable;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      close(fd);
      continue;
    }
    if (!lock_open_file(fd, 0)) {
      const int error = errno;
      close(fd);
      return error == EAGAIN || error == EACCES ? ClaimOutcome::kHeld : ClaimOutcome::kUnavailable;
    }
    // Locked; but a holder that released after the open above unlinked this file: then the claim
    // is whatever the name leads to now.
    if (!names_open_file(file, fd)) {
      close(fd);
      continue;
    }
    // The holder's name, for people only: the lock is the claim. Never written into a file that
    // has another name too (a hard link planted to someone's file) or another owner.
    if (st.st_nlink == 1 && st.st_uid == geteuid()) {
      const std::string holder = claim_holder() + "\n";
      [[maybe_unused]] const bool named = ftruncate(fd, 0) == 0 && pwrite(fd, holder.data(), holder.size(), 0) > 0;
    }
    held_[what] = fd;
    return ClaimOutcome::kTaken;
  }
  return ClaimOutcome::kHeld;
}

void MeasurementClaims::release(const std::string& what) {
  const auto claim = held_.find(what);
  if (claim == held_.end()) return;
  const std::string file = file_of(what);
  // Unlinked while still locked: nobody else removes a regular file that is locked, so the name
  // leads to this file until then.
  if (names_open_file(file, claim->second)) unlink(file.c_str());
  close(claim->second);
  held_.erase(claim);
  if (held_.empty()) rmdir(folder_.c_str());  // only where empty: other holders' claims keep it
}

}  // namespace ucudnn::store
