#include "core/input_file.h"

#include <sys/stat.h>

namespace ucudnn {

Status check_input_file(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return Status::success();
  const std::string named = what + " '" + path + "'";
  if (S_ISDIR(st.st_mode)) return Error{named + " is a directory"};
  const char* kind = S_ISFIFO(st.st_mode)   ? "a FIFO"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a file";
  return Error{named + " is " + kind + ", not a regular file"};
}

}  // namespace ucudnn
