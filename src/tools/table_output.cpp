// Writes a table the user named: appended to a stream, otherwise a new file, whole or not at all.
#include "tools/table_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace ucudnn::tools {

namespace {

Status write_all(int fd, const std::string& text, const std::string& name) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{"cannot write '" + name + "': " + std::strerror(errno)};
    done += static_cast<std::size_t>(n);
  }
  return Status::success();
}

// A stream the user points at rather than a file to create: a device, pipe or socket, or a path
// under /dev or /proc (/dev/stdout redirected to a file is that file, but the user meant the
// stream: it is appended to, never replaced).
bool is_stream(const std::string& output, bool exists, const struct stat& st) {
  return (exists && !S_ISREG(st.st_mode)) || output.rfind("/dev/", 0) == 0 || output.rfind("/proc/", 0) == 0;
}

std::string parent_folder(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

}  // namespace

Status write_new_table(const std::string& option, const std::string& output, const std::string& text) {
  const auto failed = [&](const std::string& what) { return Error{"cannot write '" + output + "': " + what}; };
  struct stat st {};
  const bool exists = ::lstat(output.c_str(), &st) == 0;
  if (exists && S_ISLNK(st.st_mode)) (void)::stat(output.c_str(), &st);
  if (is_stream(output, exists, st)) {
    const int fd = ::open(output.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) return failed(std::strerror(errno));
    Status written = write_all(fd, text, output);
    if (::close(fd) != 0 && written) written = failed(std::strerror(errno));
    return written;
  }
  const std::string exists_message =
      option + " '" + output + "' exists; it is not overwritten (remove it or choose another file)";
  if (exists) return Error{exists_message};
  std::string temp = parent_folder(output) + "/.ucudnn-table-XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) return failed(std::strerror(errno));
  const mode_t mask = ::umask(0);  // mkstemp makes 0600; a new file gets what the umask allows
  ::umask(mask);
  Status written = ::fchmod(fd, 0666 & ~mask) == 0 ? write_all(fd, text, output) : Status(failed(std::strerror(errno)));
  if (written && ::fsync(fd) != 0) written = failed(std::strerror(errno));
  if (::close(fd) != 0 && written) written = failed(std::strerror(errno));
  if (written && ::link(temp.c_str(), output.c_str()) != 0) {
    written = errno == EEXIST ? Status(Error{exists_message}) : Status(failed(std::strerror(errno)));
  }
  ::unlink(temp.c_str());
  return written;
}

}  // namespace ucudnn::tools
