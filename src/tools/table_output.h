#pragma once
// Writes a table the user named (`db export`, `bench --measurements`): whole or not at all.

#include <iosfwd>
#include <string>
#include <string_view>

#include "core/expected.h"

namespace ucudnn::tools {

/// A table written as it is made, into a temporary file that becomes the output only at commit():
/// an error, or a crash, never leaves part of a table where the user looks. Memory: one buffer.
class TableWriter {
 public:
  /// `output` a path: a new file, written beside it (in its folder) and linked into place at
  /// commit, never over an existing file. `output` a stream (a device, pipe or socket, or a path
  /// under /dev or /proc: /dev/stdout redirected to a file is that file, but the user meant the
  /// stream) or empty (the caller's stream, given to commit): written to a file without a name in
  /// the temporary folder (TMPDIR, else /tmp) and appended to the stream at commit. Errors name
  /// `option`.
  static Expected<TableWriter> create(const std::string& option, const std::string& output);
  TableWriter(TableWriter&& other) noexcept;
  TableWriter& operator=(TableWriter&&) = delete;
  TableWriter(const TableWriter&) = delete;
  ~TableWriter();  ///< removes the temporary file unless committed

  Status append(std::string_view text);
  /// Drops what was appended, to write the table again from its start.
  Status restart();
  /// Makes the table appear where create() said; `standard_output` receives it where the output
  /// was empty.
  Status commit(std::ostream* standard_output = nullptr);

 private:
  TableWriter(std::string option, std::string output, bool stream, std::string temp, int fd);
  Status flush();
  Status copy_to_stream(std::ostream* standard_output);

  std::string option_;
  std::string output_;
  bool stream_ = false;  ///< appended to a stream at commit rather than linked as a new file
  std::string temp_;     ///< the temporary file's name beside the output (empty: it has none)
  int fd_ = -1;
  std::string buffer_;
};

/// Writes `text` as a TableWriter to `output` writes it (never empty here).
Status write_new_table(const std::string& option, const std::string& output, const std::string& text);

}  // namespace ucudnn::tools
