#include "store/measurement_claims.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

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

// A claim's text, "host pid\n", fits: host names are at most 255 bytes.
constexpr std::size_t kClaimBytes = 512;
// Linux's PID_MAX_LIMIT: a larger number names no process.
constexpr long kLargestPid = 4194304;

// Where a process id means this process: the host and the PID namespace. Containers on one host
// may share a name and a database folder yet number their processes apart; a process id of
// another namespace says nothing here, so its claim is waited for, never cleared.
std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') std::snprintf(name, sizeof(name), "unknown-host");
  char space[64] = {};
  const ssize_t length = readlink("/proc/self/ns/pid", space, sizeof(space) - 1);  // "pid:[4026531836]"
  if (length <= 0) return name;
  return std::string(name) + "#" + std::string(space, static_cast<std::size_t>(length));
}

}  // namespace

std::string claim_holder() { return host_name() + " " + std::to_string(static_cast<long>(getpid())); }

MeasurementClaims::MeasurementClaims(const std::string& database_file) : folder_(database_file + ".claims") {}

std::string MeasurementClaims::file_of(const std::string& what) const { return folder_ + "/" + hashed(what); }

bool MeasurementClaims::held(const std::string& what) const {
  struct stat file {};
  return stat(file_of(what).c_str(), &file) == 0;
}

ClaimOutcome MeasurementClaims::try_take(const std::string& what) {
  if (mkdir(folder_.c_str(), 0777) != 0 && errno != EEXIST) return ClaimOutcome::kUnavailable;
  const std::string file = file_of(what);
  const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return errno == EEXIST ? ClaimOutcome::kHeld : ClaimOutcome::kUnavailable;
  const std::string holder = claim_holder() + "\n";
  const bool written = write(fd, holder.data(), holder.size()) == static_cast<ssize_t>(holder.size());
  close(fd);
  if (!written) {  // a claim naming nobody would be cleared by the others at once
    unlink(file.c_str());
    return ClaimOutcome::kUnavailable;
  }
  return ClaimOutcome::kTaken;
}

void MeasurementClaims::release(const std::string& what) { unlink(file_of(what).c_str()); }

bool MeasurementClaims::clear_if_orphaned(const std::string& what) {
  const std::string file = file_of(what);
  std::ifstream in(file);
  if (!in) return false;  // gone already: the next try takes it
  // Only as much as a claim holds: a file planted in the folder may be anything.
  char head[kClaimBytes] = {};
  in.read(head, sizeof(head) - 1);
  std::istringstream text(std::string(head, static_cast<std::size_t>(in.gcount())));
  std::string host;
  long pid = 0;
  text >> host >> pid;
  if (text && !host.empty() && pid > 0 && pid <= kLargestPid) {
    if (host != host_name()) return false;  // another host's: its waiters' bound decides
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) return false;  // still running
  } else {
    // Empty (or not a claim): its holder may be between creating and writing it; orphaned only
    // once it is old.
    struct stat st {};
    if (stat(file.c_str(), &st) != 0 || time(nullptr) - st.st_mtime < 10) return false;
  }
  return unlink(file.c_str()) == 0;
}

}  // namespace ucudnn::store
