#include "store/database_path.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/input_file.h"
#include "store/file_state.h"

namespace ucudnn::store {
namespace {

std::string link_target(const std::string& path) {
  char target[4096];
  const ssize_t length = ::readlink(path.c_str(), target, sizeof target);
  return length > 0 ? std::string(target, static_cast<std::size_t>(length)) : "?";
}

// The _r lookups: a library's threads may open databases at once.
std::string user_name(uid_t uid) {
  passwd entry{};
  passwd* found = nullptr;
  char buffer[4096];
  return ::getpwuid_r(uid, &entry, buffer, sizeof buffer, &found) == 0 && found ? found->pw_name : std::to_string(uid);
}

std::string group_name(gid_t gid) {
  group entry{};
  group* found = nullptr;
  char buffer[4096];
  return ::getgrgid_r(gid, &entry, buffer, sizeof buffer, &found) == 0 && found ? found->gr_name : std::to_string(gid);
}

// "drwxr-xr-x, owner alice:staff": what an administrator compares with the user and group.
std::string mode_and_owner(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
  char mode[16];
  std::snprintf(mode, sizeof mode, "mode %04o", static_cast<unsigned>(st.st_mode & 07777));
  return std::string(mode) + ", owner " + user_name(st.st_uid) + ":" + group_name(st.st_gid);
}

std::string this_user() {
  return "this user (" + user_name(::geteuid()) + ", uid " + std::to_string(::geteuid()) + ")";
}

// The last component of `path` (all of it where it has no '/').
std::string name_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The suffix by which SQLite names a database's side files ("-journal", "-wal", "-shm", and a
// super-journal's "-mj" and hex digits), where `file`'s name ends in one; "" otherwise.
std::string side_file_suffix(const std::string& file) {
  const std::string name = name_of(file);
  for (const char* suffix : {"-journal", "-wal", "-shm"}) {
    const std::string s(suffix);
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) return s;
  }
  // SQLite names a super-journal "-mj" and 9 hex digits (8 before 3.7.x's "-mj%06X9%02X").
  const std::size_t dash = name.rfind("-mj");
  const std::size_t digits = dash == std::string::npos ? 0 : name.size() - dash - 3;
  if (dash != std::string::npos && dash > 0 && (digits == 8 || digits == 9) &&
      name.find_first_not_of("0123456789ABCDEFabcdef", dash + 3) == std::string::npos) {
    return name.substr(dash);
  }
  return "";
}

// A database under a side file's name is deleted (a stale journal) or overwritten by the next
// open of the file it seems to belong to, read-only commands included.
Expected<DatabaseFile> refuse_side_file_names(DatabaseFile file) {
  const std::string suffix = side_file_suffix(file.path);
  if (suffix.empty()) return file;
  const std::string owner = file.path.substr(0, file.path.size() - suffix.size());
  return Error{ErrorCode::kBadParam,
               "'" + name_of(file.path) + "' is the name SQLite gives the " + suffix.substr(1) + " file of '" + owner +
                   "', and deletes or overwrites whenever '" + owner +
                   "' is opened: choose a name that does not end in -journal, -wal, -shm or -mj plus hex digits"};
}

}  // namespace

Expected<DatabaseFile> resolve_database_file(const std::string& path) {
  struct stat entry {};
  if (::lstat(path.c_str(), &entry) != 0) {
    if (errno != ENOENT)
      return Error{ErrorCode::kStorage, std::string("cannot look at it (") + std::strerror(errno) + ")"};
    // A new file: its folder's real path and its name (a missing folder fails at creation).
    std::unique_ptr<char, decltype(&std::free)> folder(::realpath(directory_of(path).c_str(), nullptr), &std::free);
    if (!folder) return refuse_side_file_names(DatabaseFile{path, false});
    return refuse_side_file_names(
        DatabaseFile{std::string(folder.get()) + (std::string(folder.get()) == "/" ? "" : "/") + name_of(path), false});
  }
  std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr), &std::free);
  if (!real && errno == ENOENT && S_ISLNK(entry.st_mode)) {
    return Error{ErrorCode::kBadParam,
                 "is a symbolic link to '" + link_target(path) +
                     "', which does not exist: a database is never created through a link (whoever made it chose "
                     "where the file would go); create the database at the link's target, or remove the link"};
  }
  if (!real) return Error{ErrorCode::kStorage, std::string("cannot resolve its path (") + std::strerror(errno) + ")"};
  DatabaseFile file{real.get(), true};
  struct stat st {};
  if (::stat(file.path.c_str(), &st) != 0)
    return Error{ErrorCode::kStorage, std::string("cannot look at it (") + std::strerror(errno) + ")"};
  if (const char* kind = irregular_file_kind(st.st_mode)) {
    return Error{ErrorCode::kBadParam,
                 std::string("is ") + kind + ", not a regular file: a database is a regular file"};
  }
  return refuse_side_file_names(file);
}

Expected<DatabaseFile> create_database_file(const DatabaseFile& file) {
  if (file.exists) return file;
  // O_EXCL: a link or file made since the look above is never followed or truncated.
  const int fd = ::open(file.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0 && errno != EEXIST)
    return Error{ErrorCode::kStorage, std::string("cannot create it (") + std::strerror(errno) + ")"};
  if (fd >= 0) ::close(fd);
  return resolve_database_file(file.path);
}

std::string why_not_writable(const std::string& path, bool exists) {
  const std::string folder = directory_of(path);
  struct statvfs vfs {};
  if (::statvfs(folder.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY)) {
    return "its file system is mounted read-only";
  }
  // The effective user's rights (AT_EACCESS), as open() checks them.
  if (::faccessat(AT_FDCWD, folder.c_str(), F_OK, AT_EACCESS) != 0) {
    return "its folder '" + folder + "' cannot be reached (" + std::strerror(errno) + ")";
  }
  if (::faccessat(AT_FDCWD, folder.c_str(), W_OK, AT_EACCESS) != 0) {
    return this_user() + " may not write the folder '" + folder + "' (" + mode_and_owner(folder) +
           "), where SQLite keeps the database's journal";
  }
  if (exists && ::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) != 0) {
    return this_user() + " may not write the file (" + mode_and_owner(path) + ")";
  }
  return "";
}

}  // namespace ucudnn::store
