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
#include "store/file_state.h"

namespace ucudnn::tools {
namespace {

void remove_with_side_files(const std::string& file) {
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) ::unlink((file + suffix).c_str());
}

}  // namespace

Expected<NewDatabaseFile> NewDatabaseFile::reserve(const std::string& path) {
  // The checks of any database path first: a name SQLite gives side files, say, is refused.
  const auto file = store::resolve_database_file(path);
  if (!file) return file.error().prefixed("benchmark database '" + path + "': ");
  const std::string folder = store::directory_of(path);
  const std::string name = std::filesystem::path(path).filename().string();
  std::random_device seed;
  std::mt19937_64 random(seed());
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string temporary = folder + "/." + name + ".ucudnn-new-" + std::to_string(random() % 1000000000);
    // O_EXCL: never a file or link that is there already; 0666 less the umask, as a new database.
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return NewDatabaseFile(path, temporary);
    }
    if (errno != EEXIST) {
      const std::string error = std::strerror(errno);
      const std::string why = store::why_not_writable(path, false);  // the folder's mode and owner, where they are why
      return Error{"benchmark database '" + path + "' does not exist, and cannot be created: " +
                   (why.empty() ? error : why)};
    }
  }
  return Error{"cannot find a free temporary name in the folder '" + folder + "'"};
}

NewDatabaseFile::NewDatabaseFile(NewDatabaseFile&& other) noexcept
    : path_(std::move(other.path_)), temporary_(std::move(other.temporary_)) {
  other.temporary_.clear();
}

NewDatabaseFile::~NewDatabaseFile() {
  if (!temporary_.empty()) remove_with_side_files(temporary_);
}

bool nothing_at(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) != 0 && errno == ENOENT;
}

Status NewDatabaseFile::publish() {
  // Never rename() alone, which would replace a file that appeared at `path` meanwhile: renameat2
  // with RENAME_NOREPLACE, or link() where the file system has no such rename.
  int named = ::renameat2(AT_FDCWD, temporary_.c_str(), AT_FDCWD, path_.c_str(), RENAME_NOREPLACE);
  if (named != 0 && (errno == EINVAL || errno == ENOSYS)) {
    named = ::link(temporary_.c_str(), path_.c_str());
    if (named == 0) ::unlink(temporary_.c_str());
  }
  if (named != 0) {
    const int error = errno;
    remove_with_side_files(temporary_);
    temporary_.clear();
    if (error == EEXIST) return Error{"'" + path_ + "' was created by another process meanwhile: left as it is"};
    return Error{"cannot name the new database '" + path_ + "': " + std::strerror(error)};
  }
  temporary_.clear();
  return Status::success();
}

}  // namespace ucudnn::tools
