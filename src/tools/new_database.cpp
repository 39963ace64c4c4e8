#include "tools/new_database.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <utility>

#include "store/database_path.h"
#include "store/file_lock.h"
#include "store/file_state.h"

namespace ucudnn::tools {
namespace {

constexpr const char* kSideSuffixes[] = {"-journal", "-wal", "-shm"};

void remove_with_side_files(const std::string& file) {
  ::unlink(file.c_str());
  for (const char* suffix : kSideSuffixes) ::unlink((file + suffix).c_str());
}

// A write lock on the first byte, which SQLite never locks (its locks are at 1 GiB and in the
// -shm): neither dropped nor met by SQLite's own descriptors (store/file_lock.h).
bool lock_first_byte(int fd) { return store::lock_open_file(fd, 1); }

std::string temporary_prefix(const std::string& name) { return "." + name + ".ucudnn-new-"; }

// What `entry` is of `name`'s temporary files: the database file (""), one of its side files (its
// suffix), or none (null).
const char* temporary_part(const std::string& entry, const std::string& name) {
  const std::string prefix = temporary_prefix(name);
  if (entry.size() <= prefix.size() || entry.compare(0, prefix.size(), prefix) != 0) return nullptr;
  const std::size_t end = entry.find_first_not_of("0123456789", prefix.size());
  if (end == prefix.size()) return nullptr;
  if (end == std::string::npos) return "";
  for (const char* suffix : kSideSuffixes) {
    if (entry.compare(end, std::string::npos, suffix) == 0) return suffix;
  }
  return nullptr;
}

std::uintmax_t bytes_of(const std::string& file) {
  struct stat st {};
  return ::lstat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode) ? static_cast<std::uintmax_t>(st.st_size) : 0;
}

// Removes the temporary files of `name` in `folder` that no running command holds (a killed one's),
// with their side files; says what it removed.
std::vector<std::string> remove_leftovers(const std::string& folder, const std::string& name) {
  std::vector<std::string> removed;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
    const std::string entry_name = entry.path().filename().string();
    const char* part = temporary_part(entry_name, name);
    if (part == nullptr) continue;
    const std::string file = folder + "/" + entry_name;
    if (*part != '\0') {
      // A side file whose database file is gone: left by a command killed while it cleaned up.
      const std::string main_file = file.substr(0, file.size() - std::strlen(part));
      if (::access(main_file.c_str(), F_OK) != 0 && errno == ENOENT) {
        const std::uintmax_t bytes = bytes_of(file);
        if (::unlink(file.c_str()) == 0) {
          removed.push_back("'" + entry_name + "' (" + std::to_string(bytes) + " bytes)");
        }
      }
      continue;
    }
    const int fd = ::open(file.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat st {};
    const bool leftover =
        ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && lock_first_byte(fd) && store::names_open_file(file, fd);
    if (leftover) {
      std::uintmax_t bytes = bytes_of(file);
      for (const char* suffix : kSideSuffixes) bytes += bytes_of(file + suffix);
      remove_with_side_files(file);  // under the lock: no command can be starting to use it
      removed.push_back("'" + entry_name + "' (" + std::to_string(bytes) + " bytes with its side files)");
    }
    ::close(fd);
  }
  return removed;
}

}  // namespace

Expected<NewDatabaseFile> NewDatabaseFile::reserve(const std::string& path) {
  // The checks of any database path first: a name SQLite gives side files, say, is refused.
  const auto file = store::resolve_database_file(path);
  if (!file) return file.error().prefixed("benchmark database '" + path + "': ");
  const std::string folder = store::directory_of(path);
  const std::string name = std::filesystem::path(path).filename().string();
  std::vector<std::string> removed = remove_leftovers(folder, name);
  std::random_device seed;
  std::mt19937_64 random(seed());
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string temporary = folder + "/" + temporary_prefix(name) + std::to_string(random() % 1000000000);
    // O_EXCL: never a file or link that is there already; 0666 less the umask, as a new database.
    const int fd = ::open(temporary.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
      // Locked, and still ours at that name: another command's sweep may have taken it in between.
      if (lock_first_byte(fd) && store::names_open_file(temporary, fd)) {
        NewDatabaseFile reserved(path, temporary, fd);
        reserved.leftovers_removed_ = std::move(removed);
        return reserved;
      }
      ::close(fd);
      continue;
    }
    if (errno != EEXIST) {
      const std::string error = std::strerror(errno);
      const std::string why = store::why_not_writable(path, false);  // the folder's mode and owner, where they are why
      return Error{ErrorCode::kStorage, "benchmark database '" + path +
                                            "' does not exist, and cannot be created: " + (why.empty() ? error : why)};
    }
  }
  return Error{ErrorCode::kStorage, "cannot find a free temporary name in the folder '" + folder + "'"};
}

NewDatabaseFile::NewDatabaseFile(NewDatabaseFile&& other) noexcept
    : path_(std::move(other.path_)),
      temporary_(std::move(other.temporary_)),
      lock_(std::exchange(other.lock_, -1)),
      leftovers_removed_(std::move(other.leftovers_removed_)) {
  other.temporary_.clear();
}

NewDatabaseFile::~NewDatabaseFile() { discard(); }

void NewDatabaseFile::discard() {
  if (!temporary_.empty()) remove_with_side_files(temporary_);
  temporary_.clear();
  // Closed only now: SQLite's connection to the file is closed by then (closing a descriptor of a
  // file drops every POSIX lock this process holds on it, SQLite's included).
  if (lock_ >= 0) ::close(lock_);
  lock_ = -1;
}

bool nothing_at(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) != 0 && errno == ENOENT;
}

Status NewDatabaseFile::publish(std::unique_ptr<store::BenchmarkDatabase> database) {
  const Status whole = database->close_as_one_file();
  database.reset();
  if (!whole) {
    discard();
    return whole;
  }
  // Never rename() alone, which would replace a file that appeared at `path` meanwhile: renameat2
  // with RENAME_NOREPLACE, or link() where the file system has no such rename.
  int named = ::renameat2(AT_FDCWD, temporary_.c_str(), AT_FDCWD, path_.c_str(), RENAME_NOREPLACE);
  if (named != 0 && (errno == EINVAL || errno == ENOSYS)) {
    named = ::link(temporary_.c_str(), path_.c_str());
    if (named == 0) ::unlink(temporary_.c_str());
  }
  if (named != 0) {
    const int error = errno;
    discard();
    if (error == EEXIST) {
      return Error{ErrorCode::kStorage, "'" + path_ + "' was created by another process meanwhile: left as it is"};
    }
    return Error{ErrorCode::kStorage, "cannot name the new database '" + path_ + "': " + std::strerror(error)};
  }
  temporary_.clear();
  discard();  // the lock only
  // The new name on disk too, so that a power loss leaves the file named or not there, never lost
  // under its temporary name (the checkpoint synced the file itself).
  const int folder = ::open(store::directory_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder >= 0) {
    [[maybe_unused]] const int synced = ::fsync(folder);
    ::close(folder);
  }
  return Status::success();
}

void report_leftovers_removed(const NewDatabaseFile& file, std::ostream& out) {
  for (const std::string& leftover : file.leftovers_removed()) {
    out << "removed " << leftover << ", left by a killed db import or db merge --create\n";
  }
  out.flush();
}

}  // namespace ucudnn::tools
