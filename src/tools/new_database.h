#pragma once
// A benchmark database that a command creates (`db merge --create`, `db import` into a new file)
// is made under a temporary name beside its path and renamed to it only once whole: a command that
// fails (a full disk, a bad row, a signal) leaves no empty or partial database that later commands
// would take for a healthy one.

#include <string>

#include "core/expected.h"

namespace ucudnn::tools {

/// Whether nothing, not even a link to nothing, is at `path`: where a command may make a new file.
bool nothing_at(const std::string& path);

class NewDatabaseFile {
 public:
  /// An empty file under a name of its own in `path`'s folder (mode 0666 less the umask, as a new
  /// database's); an error naming the folder where none can be made.
  static Expected<NewDatabaseFile> reserve(const std::string& path);
  NewDatabaseFile(NewDatabaseFile&& other) noexcept;
  NewDatabaseFile(const NewDatabaseFile&) = delete;
  NewDatabaseFile& operator=(const NewDatabaseFile&) = delete;
  NewDatabaseFile& operator=(NewDatabaseFile&&) = delete;
  /// Removes the temporary file and SQLite's files beside it, unless published.
  ~NewDatabaseFile();

  /// Where to open the database meanwhile.
  const std::string& temporary() const { return temporary_; }

  /// Gives the file its name, once every connection to it is closed. Never replaces a file that
  /// appeared at `path` meanwhile: that is an error, and the temporary file is removed.
  Status publish();

 private:
  NewDatabaseFile(std::string path, std::string temporary) : path_(std::move(path)), temporary_(std::move(temporary)) {}
  std::string path_;
  std::string temporary_;  ///< empty once published or moved from
};

}  // namespace ucudnn::tools
