// Expected<T>: the value of a failed result stops the process and names the error, rather than
// reading an empty optional (undefined behaviour before).

#include <gtest/gtest.h>

#include <string>

#include "core/expected.h"

namespace ucudnn {
namespace {

TEST(Expected, TheValueOfAFailedResultStopsTheProcessNamingTheError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const Expected<std::string> failed(Error{ErrorCode::kStorage, "the disk went away"});
  EXPECT_DEATH((void)failed.value(), "the value of a failed result was used: the disk went away");
  EXPECT_DEATH((void)failed->size(), "the disk went away");
  Expected<int> also_failed(Error{ErrorCode::kBadParam, "no number"});
  EXPECT_DEATH((void)*also_failed, "no number");
  const Expected<std::string> fine(std::string("value"));
  EXPECT_EQ(fine.value(), "value");
  EXPECT_EQ(fine->size(), 5u);
}

}  // namespace
}  // namespace ucudnn
