#include "store/file_state.h"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <memory>

namespace ucudnn::store {
namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

}  // namespace

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool file_exists(const std::string& path, bool* is_directory) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  *is_directory = S_ISDIR(st.st_mode);
  return true;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat first {}, second {};
  return ::stat(a.c_str(), &first) == 0 && ::stat(b.c_str(), &second) == 0 && first.st_dev == second.st_dev &&
         first.st_ino == second.st_ino;
}

Expected<FileKind> file_kind(const std::string& path) {
  sqlite3_vfs* vfs = sqlite3_vfs_find(nullptr);
  if (vfs == nullptr) return Error{ErrorCode::kInternal, "SQLite has no file layer"};
  std::unique_ptr<std::max_align_t[]> storage(
      new std::max_align_t[static_cast<std::size_t>(vfs->szOsFile) / sizeof(std::max_align_t) + 1]());
  auto* file = reinterpret_cast<sqlite3_file*>(storage.get());
  // A name made by sqlite3_create_filename: what a file layer may expect for a main database.
  const char* name = sqlite3_create_filename(path.c_str(), "", "", 0, nullptr);
  if (name == nullptr) return Error{ErrorCode::kAllocFailed, "out of memory"};
  int flags = 0;
  int rc = vfs->xOpen(vfs, name, file, SQLITE_OPEN_READONLY | SQLITE_OPEN_MAIN_DB, &flags);
  if (rc != SQLITE_OK) {
    if (file->pMethods) file->pMethods->xClose(file);
    sqlite3_free_filename(name);
    return Error{ErrorCode::kStorage,
                 std::string("cannot read it: ") + std::strerror(errno) + " (" + sqlite3_errstr(rc) + ")"};
  }
  sqlite3_int64 size = 0;
  rc = file->pMethods->xFileSize(file, &size);
  // Read whatever the size says: a file of /proc says 0 and holds text. A short read fills the
  // rest of the header with zeros.
  unsigned char header[100] = {};
  if (rc == SQLITE_OK) rc = file->pMethods->xRead(file, header, sizeof header, 0);
  file->pMethods->xClose(file);
  sqlite3_free_filename(name);
  const bool whole_header = rc == SQLITE_OK;
  if (!whole_header && rc != SQLITE_IOERR_SHORT_READ) {
    return Error{ErrorCode::kStorage, std::string("cannot read it (") + sqlite3_errstr(rc) + ")"};
  }
  const bool all_zero = std::all_of(std::begin(header), std::end(header), [](unsigned char c) { return c == 0; });
  if (size == 0 && !whole_header && all_zero) return FileKind::kEmpty;
  static const char kMagic[] = "SQLite format 3";  // and its terminating zero byte
  if (!whole_header || std::memcmp(header, kMagic, sizeof kMagic) != 0) return FileKind::kNotSqlite;
  return header[18] == 2 || header[19] == 2 ? FileKind::kWal : FileKind::kRollback;
}

SideFiles side_files(const std::string& path) {
  return SideFiles{exists(path + "-journal"), exists(path + "-wal"), exists(path + "-shm")};
}

Status side_files_writable(const std::string& path) {
  for (const char* suffix : {"-shm", "-wal", "-journal"}) {
    const std::string side = path + suffix;
    if (exists(side) && ::access(side.c_str(), W_OK) != 0) {
      return Error{ErrorCode::kStorage,
                   "'" + side +
                       "' is not writable by this process, so no write to the database can succeed; "
                       "if no process has the database open, delete that file (or fix its permissions)"};
    }
  }
  return Status::success();
}

}  // namespace ucudnn::store
