#include "core/line_reader.h"

#include <cstring>
#include <utility>

namespace ucudnn {
namespace {

constexpr const char* kCrOnly =
    ": the file's lines seem to end with CR alone (as classic Mac OS wrote them); lines must end with LF or CR LF "
    "(convert it, e.g. with tr '\\r' '\\n')";

}  // namespace

LineReader::LineReader(std::istream& in, std::string source_name, std::size_t max_bytes)
    : in_(in), source_name_(std::move(source_name)), max_bytes_(max_bytes), buffer_(max_bytes + 1, '\0') {}

Expected<bool> LineReader::next(std::string* line) {
  if (!in_.good()) return false;
  // istream::getline stores at most max_bytes bytes; one more without a line break sets failbit.
  // It keeps NUL bytes, and gcount() says how many it took (the line break included).
  in_.getline(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  const auto taken = static_cast<std::size_t>(in_.gcount());
  if (in_.bad()) return Error::storage(source_name_ + ": read error");
  if (taken == 0 && in_.eof()) return false;  // nothing after the last line break
  ++line_number_;
  const std::string where = source_name_ + ":" + std::to_string(line_number_) + ": ";
  if (in_.fail() && !in_.eof()) {
    // A file whose lines end with CR alone reads as one line: say so rather than only its length.
    const bool cr = std::memchr(buffer_.data(), '\r', max_bytes_) != nullptr;
    return Error::invalid(where + "line longer than " + std::to_string(max_bytes_) + " bytes (the limit of a line)" +
                          (cr ? std::string(kCrOnly) : ""));
  }
  const bool had_break = !in_.eof();
  line->assign(buffer_.data(), had_break ? taken - 1 : taken);
  // A CR is a line break's first half (CR LF) or nothing: inside a line, the lines end with CR alone.
  const std::size_t cr = line->find('\r');
  if (cr != std::string::npos && cr + 1 != line->size()) {
    return Error::invalid(where + "a carriage return (CR) inside the line" + std::string(kCrOnly));
  }
  return true;
}

}  // namespace ucudnn
