#pragma once
// A benchmark database that a command creates (`db merge --create`, `db import` into a new file)
// is made under a temporary name beside its path, `.NAME.ucudnn-new-N`, and renamed to it only
// once whole: a command that fails (a full disk, a bad row, a signal) leaves no empty or partial
// database that later commands would take for a healthy one.
//
// Whole means: every row committed, and in WAL mode every committed page copied from the -wal into
// the file by a checkpoint that completed (BenchmarkDatabase::close_as_one_file); a -wal left
// beside the temporary name would hold rows that the renamed file lacks. The creating command
// holds a lock on the temporary file's first byte (an OFD lock, apart from the bytes SQLite locks)
// while it works; a temporary file that nobody locks is a killed command's leftover, and the next
// creation of the same NAME removes it with its side files, saying so.

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/expected.h"
#include "store/database.h"

namespace ucudnn::tools {

/// Whether nothing, not even a link to nothing, is at `path`: where a command may make a new file.
bool nothing_at(const std::string& path);

class NewDatabaseFile {
 public:
  /// An empty file under a name of its own in `path`'s folder (mode 0666 less the umask, as a new
  /// database's), after removing what killed creations of `path` left there; an error naming the
  /// folder where none can be made.
  static Expected<NewDatabaseFile> reserve(const std::string& path);
  NewDatabaseFile(NewDatabaseFile&& other) noexcept;
  NewDatabaseFile(const NewDatabaseFile&) = delete;
  NewDatabaseFile& operator=(const NewDatabaseFile&) = delete;
  NewDatabaseFile& operator=(NewDatabaseFile&&) = delete;
  /// Removes the temporary file and SQLite's files beside it, unless published.
  ~NewDatabaseFile();

  /// Where to open the database meanwhile.
  const std::string& temporary() const { return temporary_; }
  /// What reserve() removed: "'.NAME.ucudnn-new-N' (B bytes with its side files)", one per leftover.
  const std::vector<std::string>& leftovers_removed() const { return leftovers_removed_; }

  /// Makes `database` (opened at temporary()) one whole file and closes it, then gives the file its
  /// name. Never replaces a file that appeared at `path` meanwhile: that is an error, and the
  /// temporary file is removed, as it is where the database cannot be made whole.
  Status publish(std::unique_ptr<store::BenchmarkDatabase> database);

 private:
  NewDatabaseFile(std::string path, std::string temporary, int lock)
      : path_(std::move(path)), temporary_(std::move(temporary)), lock_(lock) {}
  void discard();
  std::string path_;
  std::string temporary_;  ///< empty once published or moved from
  int lock_ = -1;          ///< the descriptor whose lock says the temporary file is in use
  std::vector<std::string> leftovers_removed_;
};

/// One line on `out` for each leftover that `file`'s reservation removed.
void report_leftovers_removed(const NewDatabaseFile& file, std::ostream& out);

}  // namespace ucudnn::tools
