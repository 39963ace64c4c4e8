// Expected<T> and Error: the value of a failed result, or the error of a successful one, stops
// the process naming the misuse, rather than reading an empty optional (undefined behaviour
// before); every error names its kind.

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

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

TEST(Expected, TheErrorOfASuccessfulResultStopsTheProcessNamingTheMisuse) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const Expected<int> fine(3);
  EXPECT_DEATH((void)fine.error(), "the error of a successful result was asked for");
  EXPECT_DEATH((void)fine.message(), "the error of a successful result was asked for");
  const Status done = Status::success();
  EXPECT_DEATH((void)done.error(), "the error of a successful result was asked for");
  EXPECT_DEATH((void)done.message(), "the error of a successful result was asked for");
  const Status failed = Error::cuda("cudaMemcpy failed");
  EXPECT_EQ(failed.error().code, ErrorCode::kCuda);
  EXPECT_EQ(failed.message(), "cudaMemcpy failed");
}

// No error without a kind: a bare string converts to no Error, so each place that raises one
// names it (before, a string was silently invalid input, CUDA and GLPK failures included).
TEST(Error, NoConstructorLeavesTheKindOut) {
  static_assert(!std::is_constructible_v<Error, std::string>);
  static_assert(!std::is_constructible_v<Error, const char*>);
  static_assert(!std::is_convertible_v<std::string, Status>);
  struct Case {
    Error error;
    ErrorCode kind;
    const char* name;
  };
  const Case cases[] = {
      {Error::invalid("x"), ErrorCode::kBadParam, "invalid input"},
      {Error::unsupported("x"), ErrorCode::kNotSupported, "not supported"},
      {Error::out_of_memory("x"), ErrorCode::kAllocFailed, "out of memory"},
      {Error::cuda("x"), ErrorCode::kCuda, "CUDA failure"},
      {Error::solver("x"), ErrorCode::kSolver, "GLPK failure"},
      {Error::time_limit("x"), ErrorCode::kTimeLimit, "time limit reached"},
      {Error::internal("x"), ErrorCode::kInternal, "internal error"},
      {Error::storage("x"), ErrorCode::kStorage, "storage failure"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.error.code, c.kind);
    EXPECT_STREQ(error_kind_name(c.error.code), c.name);
  }
}

}  // namespace
}  // namespace ucudnn
