// The text that errors quote from their input (core/message_text.h): a field cut short at a
// character boundary, saying how long it was, so that an error stays one short line whatever the
// field (the commands' errors on such input: test_input_bounds.cpp).

#include <gtest/gtest.h>

#include <string>

#include "core/message_text.h"

namespace ucudnn {
namespace {

TEST(MessageText, ExcerptCutsLongTextAtACharacterBoundaryAndSaysHowLong) {
  EXPECT_EQ(excerpt("conv1"), "conv1");
  EXPECT_EQ(excerpt(std::string(64, 'a')), std::string(64, 'a'));
  const std::string cut = excerpt(std::string(10'000'000, 'a'));
  EXPECT_LT(cut.size(), 100u);
  EXPECT_NE(cut.find("(10000000 bytes)"), std::string::npos) << cut;
  // "é" is two bytes: a cut at byte 4 of "aaaé..." keeps the character whole or drops it.
  const std::string accents = "aaa" + std::string(100, 'x');
  std::string with_accent = "aaa\xC3\xA9" + std::string(100, 'x');
  const std::string short_cut = excerpt(with_accent, 4);
  EXPECT_EQ(short_cut.rfind("aaa...", 0), 0u) << short_cut;
  EXPECT_EQ(excerpt(accents, 4).rfind("aaax...", 0), 0u);
}

}  // namespace
}  // namespace ucudnn
