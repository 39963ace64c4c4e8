#include "store/file_lock.h"

#include <fcntl.h>
#include <sys/stat.h>

namespace ucudnn::store {
namespace {

struct flock write_lock(off_t length) {
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_len = length;
  return lock;
}

}  // namespace

bool lock_open_file(int fd, off_t length) {
  struct flock lock = write_lock(length);
  return fcntl(fd, F_OFD_SETLK, &lock) == 0;
}

bool locked_elsewhere(int fd, off_t length) {
  struct flock lock = write_lock(length);
  return fcntl(fd, F_OFD_GETLK, &lock) == 0 && lock.l_type != F_UNLCK;
}

bool names_open_file(const std::string& path, int fd) {
  struct stat at_name {};
  struct stat open_file {};
  return lstat(path.c_str(), &at_name) == 0 && fstat(fd, &open_file) == 0 && at_name.st_dev == open_file.st_dev &&
         at_name.st_ino == open_file.st_ino;
}

}  // namespace ucudnn::store
