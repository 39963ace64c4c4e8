// Writes a table the user named: into a temporary file, which becomes the output only when whole.
#include "tools/table_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <random>
#include <string>
#include <utility>

namespace ucudnn::tools {

namespace {

constexpr std::size_t kBufferBytes = 256 * 1024;

Status write_all(int fd, const char* data, std::size_t size, const std::string& name) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error::storage("cannot write '" + name + "': " + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
  return Status::success();
}

// A stream the user points at rather than a file to create: a device, pipe or socket, or a path
// under /dev or /proc.
bool is_stream(const std::string& output, bool exists, const struct stat& st) {
  return (exists && !S_ISREG(st.st_mode)) || output.rfind("/dev/", 0) == 0 || output.rfind("/proc/", 0) == 0;
}

std::string parent_folder(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

// A new file for reading and writing (a stream's copy is read back), named `folder` + "/" +
// `prefix` + six random characters, with mode 0666 less the umask (mkstemp's 0600 would need the
// umask read, which means setting it, process-wide) and closed on exec; *name receives its name.
int create_unique(const std::string& folder, const std::string& prefix, std::string* name) {
  static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device random;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string candidate = folder + "/" + prefix;
    for (int i = 0; i < 6; ++i) candidate += kLetters[random() % (sizeof kLetters - 1)];
    const int fd = ::open(candidate.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd >= 0) {
      *name = std::move(candidate);
      return fd;
    }
    if (errno != EEXIST) return -1;
  }
  return -1;
}

std::string exists_message(const std::string& option, const std::string& output) {
  return option + " '" + output + "' exists; it is not overwritten (remove it or choose another file)";
}

}  // namespace

TableWriter::TableWriter(std::string option, std::string output, bool stream, std::string temp, int fd)
    : option_(std::move(option)), output_(std::move(output)), stream_(stream), temp_(std::move(temp)), fd_(fd) {
  buffer_.reserve(kBufferBytes);
}

TableWriter::TableWriter(TableWriter&& other) noexcept
    : option_(std::move(other.option_)),
      output_(std::move(other.output_)),
      stream_(other.stream_),
      temp_(std::exchange(other.temp_, std::string())),
      fd_(std::exchange(other.fd_, -1)),
      buffer_(std::move(other.buffer_)) {}

TableWriter::~TableWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

Expected<TableWriter> TableWriter::create(const std::string& option, const std::string& output) {
  const auto failed = [&](const std::string& where) {
    return Error::storage("cannot write '" + (output.empty() ? std::string("the table") : output) +
                          "': cannot make a temporary file in '" + where + "': " + std::strerror(errno));
  };
  struct stat st {};
  const bool exists = !output.empty() && ::lstat(output.c_str(), &st) == 0;
  if (exists && S_ISLNK(st.st_mode)) (void)::stat(output.c_str(), &st);
  if (output.empty() || is_stream(output, exists, st)) {
    // The table is copied to the stream once whole: its file needs no name.
    std::error_code none;
    auto folder = std::filesystem::temp_directory_path(none);
    const std::string where = none ? "/tmp" : folder.string();
    std::string temp;
    const int fd = create_unique(where, "ucudnn-table-", &temp);
    if (fd < 0) return failed(where);
    ::unlink(temp.c_str());
    return TableWriter(option, output, true, "", fd);
  }
  if (exists) return Error::invalid(exists_message(option, output));
  const std::string where = parent_folder(output);
  std::string temp;
  const int fd = create_unique(where, ".ucudnn-table-", &temp);
  if (fd < 0) return failed(where);
  return TableWriter(option, output, false, temp, fd);
}

Status TableWriter::append(std::string_view text) {
  buffer_.append(text);
  return buffer_.size() >= kBufferBytes ? flush() : Status::success();
}

Status TableWriter::flush() {
  const Status written = write_all(fd_, buffer_.data(), buffer_.size(), output_.empty() ? "the table" : output_);
  buffer_.clear();
  return written;
}

Status TableWriter::restart() {
  buffer_.clear();
  if (::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) != 0) {
    return Error::storage("cannot write '" + output_ + "': " + std::strerror(errno));
  }
  return Status::success();
}

Status TableWriter::commit(std::ostream* standard_output) {
  UCUDNN_TRY(flush());
  if (stream_) return copy_to_stream(standard_output);
  const auto failed = [&] { return Error::storage("cannot write '" + output_ + "': " + std::strerror(errno)); };
  if (::fsync(fd_) != 0) return failed();
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) return failed();
  if (::link(temp_.c_str(), output_.c_str()) != 0) {
    return errno == EEXIST ? Error::invalid(exists_message(option_, output_)) : failed();
  }
  return Status::success();  // the destructor removes the temporary name
}

Status TableWriter::copy_to_stream(std::ostream* standard_output) {
  const std::string name = output_.empty() ? "standard output" : output_;
  if (output_.empty() && standard_output == nullptr) return Error{ErrorCode::kInternal, "no stream for the table"};
  if (::lseek(fd_, 0, SEEK_SET) != 0) return Error::storage("cannot write '" + name + "': " + std::strerror(errno));
  int target = -1;
  if (!output_.empty()) {
    target = ::open(output_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (target < 0) return Error::storage("cannot write '" + name + "': " + std::strerror(errno));
  }
  Status copied = Status::success();
  buffer_.resize(kBufferBytes);
  while (copied) {
    const ssize_t n = ::read(fd_, buffer_.data(), buffer_.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) copied = Error::storage("cannot read the table back: " + std::string(std::strerror(errno)));
    if (n <= 0) break;
    if (target >= 0) {
      copied = write_all(target, buffer_.data(), static_cast<std::size_t>(n), name);
    } else if (!standard_output->write(buffer_.data(), n)) {
      copied = Error::storage("cannot write '" + name + "'");
    }
  }
  buffer_.clear();
  if (target >= 0 && ::close(target) != 0 && copied)
    copied = Error::storage("cannot write '" + name + "': " + std::strerror(errno));
  return copied;
}

Status write_new_table(const std::string& option, const std::string& output, const std::string& text) {
  UCUDNN_TRY_ASSIGN(TableWriter table, TableWriter::create(option, output));
  UCUDNN_TRY(table.append(text));
  return table.commit();
}

}  // namespace ucudnn::tools
