#pragma once
// Shared by the CPU tests: a private temporary directory and the recorded AlexNet table.

#include <sys/stat.h>

#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>


// Defined where the test program runs under AddressSanitizer (g++ and clang spell it apart).
#if defined(__SANITIZE_ADDRESS__)
#define UCUDNN_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UCUDNN_TEST_UNDER_ASAN 1
#endif
#endif

namespace ucudnn::testing {

/// How many trials a randomised comparison runs: all of them in a plain build; a quarter under
/// AddressSanitizer, which runs the same code paths several times slower (4x with g++, 15x with
/// clang's UndefinedBehaviorSanitizer beside it). Every trial checks the same properties.
constexpr int trials(int plain_build_trials) {
#ifdef UCUDNN_TEST_UNDER_ASAN
  return plain_build_trials / 4;
#else
  return plain_build_trials;
#endif
}

/// Sets (or, given no value, removes) one variable of this process's environment for a scope.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedVariable() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

/// The recorded H100 AlexNet table of tests/data.
inline std::string alexnet_csv_path() {
  return std::string(UCUDNN_TEST_DATA_DIR) + "/h100-alexnet-b256-fp32.csv";
}

/// A file's bytes, exactly (empty if it cannot be read).
inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Replaces a file's bytes.
inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// Whether a name exists, a dangling link included.
inline bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

/// A fresh directory under the system temp directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "ucudnn-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  /// Writes `contents` to NAME inside the directory and returns its path.
  std::string write(const std::string& name, const std::string& contents) const {
    const auto file = path_ / name;
    std::ofstream(file) << contents;
    return file.string();
  }

 private:
  std::filesystem::path path_;
};

/// The lines of `text`, without their line breaks.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// `args` followed by `more`: a command line with options added.
inline std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

/// A string literal with its embedded NUL bytes kept.
template <std::size_t N>
std::string bytes(const char (&text)[N]) {
  return std::string(text, N - 1);
}

/// A number of 400 digits: too large for any size, and for a double.
inline const std::string kHugeNumber(400, '9');

/// The seconds from `start` until now.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace ucudnn::testing
