// What a file's first bytes say it is (core/input_file.h): a database or an archive given for a
// table is named as such, while text, stray bytes in a line included, is left to the table reader
// (which names the line). What the commands say of such files: test_plan_inputs.cpp.

#include <gtest/gtest.h>

#include <string>

#include "core/input_file.h"
#include "test_helpers.h"

namespace ucudnn {
namespace {
using testing::bytes;

TEST(InputFile, KnownFormatsAreNamedByTheirSignature) {
  EXPECT_EQ(binary_content_kind(bytes("SQLite format 3\0\x10\x00\x01\x01")), kSqliteDatabaseKind);
  EXPECT_EQ(binary_content_kind(bytes("\x1f\x8b\x08\x00")), "gzip-compressed data");
  EXPECT_EQ(binary_content_kind("PK\x03\x04rest"), "a zip archive (an .xlsx workbook is one)");
  EXPECT_EQ(binary_content_kind("\x7f"
                                "ELF\x02\x01"),
            "an ELF executable or library");
  EXPECT_EQ(binary_content_kind("\xff\xfel\0a\0y\0"), "UTF-16 text");
  std::string tar(300, '\0');
  tar.replace(257, 5, "ustar");
  EXPECT_EQ(binary_content_kind(tar), "a tar archive");
  // "SQLite format 3" is only the header with its NUL: a table whose first layer is so named is text.
  EXPECT_EQ(binary_content_kind("SQLite format 3,fwd,1,0,0,1.0,0\n"), "");
}

TEST(InputFile, TextIsTextWhateverStrayBytesItsLinesHold) {
  EXPECT_EQ(binary_content_kind(""), "");
  EXPECT_EQ(binary_content_kind("layer,op,microbatch\r\nalex_conv1,fwd,1\r\n"), "");
  EXPECT_EQ(binary_content_kind("caf\xc3\xa9,fwd,1,0,0,1.0,0\n"), "") << "UTF-8";
  EXPECT_EQ(binary_content_kind("caf\xe9,fwd,1,0,0,1.0,0\ncaf\xe9,fwd,2,0,0,1.0,0\n"), "") << "a Latin-1 name";
  EXPECT_EQ(binary_content_kind(bytes("k,fwd,1,0,0,5\0"
                                      "999,0\n")),
            "")
      << "one NUL: the reader names its line";
}

TEST(InputFile, MostlyUnprintableBytesAreBinaryData) {
  std::string noise;
  for (int i = 0; i < 4096; ++i) noise += static_cast<char>((i * 7919) % 256);
  EXPECT_EQ(binary_content_kind(noise), "binary data");
  EXPECT_EQ(binary_content_kind(std::string(64, '\0')), "binary data");
}

}  // namespace
}  // namespace ucudnn
