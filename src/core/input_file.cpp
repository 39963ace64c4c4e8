#include "core/input_file.h"

#include <sys/stat.h>

namespace ucudnn {

const char* irregular_file_kind(unsigned st_mode) {
  if (S_ISREG(st_mode)) return nullptr;
  return S_ISDIR(st_mode)    ? "a directory"
         : S_ISFIFO(st_mode) ? "a FIFO"
         : S_ISCHR(st_mode)  ? "a character device"
         : S_ISBLK(st_mode)  ? "a block device"
         : S_ISSOCK(st_mode) ? "a socket"
                             : "not a file";
}

Status check_input_file(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return Status::success();
  const std::string named = what + " '" + path + "'";
  if (S_ISDIR(st.st_mode)) return Error::invalid(named + " is a directory");
  return Error::invalid(named + " is " + irregular_file_kind(st.st_mode) + ", not a regular file");
}

}  // namespace ucudnn
