// The front-end's fallback to plain cuDNN (api/plain_fallback.h): a failure of any kind that
// leaves a call to plain cuDNN is said once, naming its kind. The failures come from the units
// that raise them where a CPU can raise them (a CUDA query of a device that does not exist, a
// damaged database, the WD front's time limit); GLPK's is built as wd_optimizer.cpp builds it.

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>

#include "api/plain_fallback.h"
#include "core/memory_budget.h"
#include "optimize/pareto.h"
#include "runtime/device_info.h"
#include "store/database.h"
#include "test_helpers.h"

namespace ucudnn::api {
namespace {

// What the fallback logs (stderr: the tests set no UCUDNN_LOG_FILE) when it runs `plain` for `failure`.
std::string warning_of(ConvOp op, const Error& failure, Status plain_result = Status::success()) {
  ::testing::internal::CaptureStderr();
  const Status ran = plain_cudnn_instead(op, failure, [&] { return plain_result; });
  const std::string logged = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(ran.ok(), plain_result.ok()) << "the fallback returns plain cuDNN's result";
  return logged;
}

Error cuda_failure() {
  DeviceMemory memory;
  const Status asked = runtime::device_memory(1 << 20, &memory);  // no machine has that device
  EXPECT_FALSE(asked.ok());
  return asked.ok() ? Error::internal("no failure") : asked.error();
}

Error storage_failure(const testing::TempDir& dir) {
  const std::string path = (dir.path() / "damaged.db").string();
  std::ofstream out(path, std::ios::binary);
  out.write("SQLite format 3", 16);  // an SQLite header, then no valid page
  std::mt19937 rng(61);
  for (int i = 0; i < 8192; ++i) out.put(static_cast<char>(rng()));
  out.close();
  auto opened = store::BenchmarkDatabase::open(path);
  EXPECT_FALSE(opened.ok());
  return opened.ok() ? Error::internal("no failure") : opened.error();
}

TEST(PlainFallback, EachKindOfFailureIsNamedInItsWarning) {
  testing::TempDir dir;
  struct Case {
    Error failure;
    ErrorCode kind;
    const char* named;
  };
  const Case cases[] = {
      {cuda_failure(), ErrorCode::kCuda, "(CUDA failure)"},
      {Error::solver("workspace division: GLPK failed: solver failure"), ErrorCode::kSolver, "(GLPK failure)"},
      {optimize::front_past_time_limit(0.01), ErrorCode::kTimeLimit, "(time limit reached)"},
      {storage_failure(dir), ErrorCode::kStorage, "(storage failure)"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.failure.code, c.kind) << c.failure.message;
    const std::string logged = warning_of(ConvOp::kBackwardFilter, c.failure);
    EXPECT_NE(logged.find("planning a bwdf convolution failed " + std::string(c.named) +
                          "; running it as plain cuDNN would: " + c.failure.message),
              std::string::npos)
        << logged;
    EXPECT_EQ(warning_of(ConvOp::kBackwardFilter, c.failure), "") << "once per op and failure";
  }
}

TEST(PlainFallback, InvalidInputIsSaidWherePlainCudnnRunsTheCallAndLeftToItsStatusWhereItRefuses) {
  const Error refused = Error::invalid("a descriptor ucudnn refuses, test " + std::to_string(std::random_device{}()));
  EXPECT_EQ(warning_of(ConvOp::kForward, refused, Error(ErrorCode::kBadParam, "cuDNN refuses it too")), "");
  const std::string logged = warning_of(ConvOp::kForward, refused);
  EXPECT_NE(logged.find("planning a fwd convolution failed (invalid input)"), std::string::npos) << logged;
}

}  // namespace
}  // namespace ucudnn::api
