#pragma once
// Reading text a line at a time without ever holding more than a bounded line: a file that is one
// 100 MB line is refused after its first `max_bytes` bytes, never read whole into memory.

#include <cstddef>
#include <istream>
#include <string>

#include "core/expected.h"

namespace ucudnn {

class LineReader {
 public:
  /// Lines of `in` of at most `max_bytes` bytes each (the line break not counted; a "\r" before it
  /// is). `source_name` starts every error ("FILE:LINE: ...").
  LineReader(std::istream& in, std::string source_name, std::size_t max_bytes);

  /// The next line, without its line break, in `line`; false at the end of the input. A longer
  /// line is an error naming it and the limit, after reading `max_bytes` + 1 of its bytes; so is a
  /// failed read, and a CR anywhere but last (the file's lines end with CR alone): both say so.
  Expected<bool> next(std::string* line);

  /// The number of the line `next` returned last (1 for the first).
  int line_number() const { return line_number_; }

 private:
  std::istream& in_;
  std::string source_name_;
  std::size_t max_bytes_;
  std::string buffer_;  ///< max_bytes + 1 bytes, allocated once
  int line_number_ = 0;
};

}  // namespace ucudnn
