#include "core/input_file.h"

#include <sys/stat.h>

#include <array>
#include <fstream>

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

namespace {

// A file format by the bytes it starts with (at `offset`), and what it is called.
struct Signature {
  std::size_t offset;
  std::string_view magic;
  const char* kind;
};

using namespace std::string_view_literals;
constexpr std::array kSignatures = {
    Signature{0, "SQLite format 3\0"sv, kSqliteDatabaseKind},
    Signature{0, "\x1f\x8b"sv, "gzip-compressed data"},
    Signature{0, "BZh"sv, "bzip2-compressed data"},
    Signature{0, "\xfd\x37zXZ\0"sv, "xz-compressed data"},  // \x37: '7', which \xfd would swallow
    Signature{0, "\x28\xb5\x2f\xfd"sv, "zstd-compressed data"},
    Signature{0, "PK\x03\x04"sv, "a zip archive (an .xlsx workbook is one)"},
    Signature{0, "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"sv, "a Microsoft Office document (an .xls workbook)"},
    Signature{257, "ustar"sv, "a tar archive"},
    Signature{0, "\x7f\x45LF"sv, "an ELF executable or library"},  // \x45: 'E', likewise
    Signature{0, "%PDF-"sv, "a PDF document"},
    Signature{0, "\x89PNG"sv, "a PNG image"},
    Signature{0, "\x93NUMPY"sv, "a NumPy array (.npy)"},
    Signature{0, "\xff\xfe"sv, "UTF-16 text"},
    Signature{0, "\xfe\xff"sv, "UTF-16 text"},
};

bool control_byte(unsigned char c) {
  return (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7f;
}

// The bytes of `head` that text would not hold: control bytes, and bytes that start no UTF-8
// character or break one (a sequence cut by the end of `head` is not counted).
std::size_t non_text_bytes(std::string_view head) {
  std::size_t odd = 0;
  for (std::size_t i = 0; i < head.size();) {
    const auto c = static_cast<unsigned char>(head[i]);
    const std::size_t length = c < 0x80                 ? 1
                               : c >= 0xc2 && c <= 0xdf ? 2
                               : c >= 0xe0 && c <= 0xef ? 3
                               : c >= 0xf0 && c <= 0xf4 ? 4
                                                        : 0;
    if (length == 1) {
      odd += control_byte(c) ? 1 : 0;
      ++i;
      continue;
    }
    std::size_t next = i + 1;
    while (length > 1 && next < head.size() && next < i + length &&
           (static_cast<unsigned char>(head[next]) & 0xc0) == 0x80) {
      ++next;
    }
    if (length == 0 || (next < i + length && next < head.size())) {
      ++odd;  // not a lead byte, or a character broken before its end
      ++i;
    } else {
      i = next;
    }
  }
  return odd;
}

}  // namespace

std::string binary_content_kind(std::string_view head) {
  for (const Signature& signature : kSignatures) {
    if (head.size() >= signature.offset + signature.magic.size() &&
        head.substr(signature.offset, signature.magic.size()) == signature.magic) {
      return signature.kind;
    }
  }
  return non_text_bytes(head) * 8 > head.size() ? "binary data" : "";
}

std::string binary_file_kind(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(kContentHeadBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return binary_content_kind(head);
}

}  // namespace ucudnn
