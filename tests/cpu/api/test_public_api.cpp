// The public header's calls that need no GPU: the version, the virtual algorithm constants, the
// getters added beside each setter, and the checks of the plan query's struct.

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <type_traits>

#include "test_helpers.h"
#include "ucudnn/ucudnn.h"

namespace {

TEST(PublicApi, TheLoadedLibrarysVersionIsTheHeaders) {
  EXPECT_EQ(ucudnnGetVersion(), UCUDNN_VERSION);
  EXPECT_EQ(UCUDNN_VERSION, UCUDNN_VERSION_MAJOR * 10000 + UCUDNN_VERSION_MINOR * 100 + UCUDNN_VERSION_PATCH);
}

// Callers index tables by algorithm: the virtual values are cuDNN's counts, of cuDNN's types, and
// constant expressions.
TEST(PublicApi, VirtualAlgorithmsAreOnePastCudnnsLastOfTheirOwnType) {
  static_assert(std::is_same<decltype(UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED), cudnnConvolutionFwdAlgo_t>::value,
                "forward");
  static_assert(
      std::is_same<decltype(UCUDNN_CONVOLUTION_BWD_DATA_ALGO_MICRO_BATCHED), cudnnConvolutionBwdDataAlgo_t>::value,
      "backward data");
  static_assert(
      std::is_same<decltype(UCUDNN_CONVOLUTION_BWD_FILTER_ALGO_MICRO_BATCHED), cudnnConvolutionBwdFilterAlgo_t>::value,
      "backward filter");
  EXPECT_EQ(UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED, CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  EXPECT_EQ(UCUDNN_CONVOLUTION_BWD_DATA_ALGO_MICRO_BATCHED, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
  EXPECT_EQ(UCUDNN_CONVOLUTION_BWD_FILTER_ALGO_MICRO_BATCHED, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
  constexpr size_t kDefault = UCUDNN_WORKSPACE_LIMIT_DEFAULT;
  EXPECT_EQ(kDefault, SIZE_MAX);
}

TEST(PublicApi, EveryPerHandleGetterRefusesANullHandle) {
  const UcudnnHandle_t null_handle;
  UcudnnBatchSizePolicy_t policy;
  UcudnnCandidates_t candidates;
  size_t bytes = 0;
  int value = 0;
  EXPECT_EQ(ucudnnGetBatchSizePolicy(null_handle, &policy), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(ucudnnGetCandidates(null_handle, &candidates), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(ucudnnGetDefaultWorkspaceLimit(null_handle, &bytes), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(ucudnnGetGraphReplay(null_handle, &value), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(ucudnnSetLayerId(null_handle, 3), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(ucudnnGetLayerId(null_handle, &value), CUDNN_STATUS_BAD_PARAM);
  EXPECT_NE(std::string(ucudnnGetLastErrorMessage()).find("ucudnnGetLayerId: the handle is null"), std::string::npos)
      << ucudnnGetLastErrorMessage();
  EXPECT_EQ(ucudnnGetTotalWorkspaceSize(nullptr), CUDNN_STATUS_BAD_PARAM);
}

TEST(PublicApi, TheDatabaseGetterAnswersThePathInUseIntoTheCallersBuffer) {
  ucudnn::testing::TempDir dir;
  const std::string path = (dir.path() / "bench.db").string();
  ASSERT_EQ(ucudnnSetDatabase(path.c_str()), CUDNN_STATUS_SUCCESS) << ucudnnGetLastErrorMessage();

  size_t length = 0;
  EXPECT_EQ(ucudnnGetDatabase(nullptr, 0, &length), CUDNN_STATUS_SUCCESS) << "a length query";
  EXPECT_EQ(length, path.size());
  std::string buffer(length + 1, 'x');
  EXPECT_EQ(ucudnnGetDatabase(&buffer[0], buffer.size(), nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_STREQ(buffer.c_str(), path.c_str());

  char small[8];
  std::memset(small, 'x', sizeof small);
  length = 0;
  EXPECT_EQ(ucudnnGetDatabase(small, sizeof small, &length), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(length, path.size()) << "the length still says what is needed";
  EXPECT_STREQ(small, "") << "nothing cut";
  EXPECT_NE(
      std::string(ucudnnGetLastErrorMessage()).find("pathSize must be at least " + std::to_string(path.size() + 1)),
      std::string::npos)
      << ucudnnGetLastErrorMessage();
  EXPECT_EQ(ucudnnGetDatabase(nullptr, 4, &length), CUDNN_STATUS_BAD_PARAM);

  // A file that is no database: refused, and the process uses none.
  const std::string junk = dir.write("junk.db", "not a database, not at all, not even close to one");
  EXPECT_EQ(ucudnnSetDatabase(junk.c_str()), CUDNN_STATUS_BAD_PARAM);
  char none[4] = "abc";
  EXPECT_EQ(ucudnnGetDatabase(none, sizeof none, &length), CUDNN_STATUS_SUCCESS);
  EXPECT_STREQ(none, "");
  EXPECT_EQ(length, 0u);
  ASSERT_EQ(ucudnnSetDatabase(nullptr), CUDNN_STATUS_SUCCESS);
}

// The plan query checks the caller's struct before anything else, so these need no GPU.
TEST(PublicApi, ThePlanQueryRefusesAStructItCannotFill) {
  const UcudnnHandle_t null_handle;
  UcudnnMicroBatchRun runs[2];
  auto query = [&](UcudnnPlanInfo* info) {
    return ucudnnGetPlan(null_handle, UCUDNN_OP_FORWARD, nullptr, nullptr, nullptr, nullptr,
                         UCUDNN_WORKSPACE_LIMIT_DEFAULT, info);
  };
  auto message = [] { return std::string(ucudnnGetLastErrorMessage()); };
  EXPECT_EQ(query(nullptr), CUDNN_STATUS_BAD_PARAM);

  UcudnnPlanInfo info{};
  info.structSize = 0;  // as a C caller's zeroed struct, which C++'s defaults would otherwise fill
  EXPECT_EQ(query(&info), CUDNN_STATUS_BAD_PARAM);
  EXPECT_NE(message().find("UcudnnPlanInfo::structSize is 0"), std::string::npos) << message();
  EXPECT_NE(message().find("ucudnnInitPlanInfo"), std::string::npos) << message();

  ucudnnInitPlanInfo(&info, runs, 2, nullptr, 0);
  info.runStructSize = sizeof(UcudnnMicroBatchRun) / 2;  // an element smaller than this version's
  EXPECT_EQ(query(&info), CUDNN_STATUS_BAD_PARAM);
  EXPECT_NE(message().find("UcudnnPlanInfo::runStructSize is"), std::string::npos) << message();

  ucudnnInitPlanInfo(&info, nullptr, 2, nullptr, 0);
  EXPECT_EQ(query(&info), CUDNN_STATUS_BAD_PARAM);
  EXPECT_NE(message().find("runs is NULL but its capacity is 2"), std::string::npos) << message();
  ucudnnInitPlanInfo(&info, runs, 2, runs, -1);
  EXPECT_EQ(query(&info), CUDNN_STATUS_BAD_PARAM);
  EXPECT_NE(message().find("replayedRuns capacity is negative"), std::string::npos) << message();

  ucudnnInitPlanInfo(&info, runs, 2, nullptr, 0);  // well formed: now the handle is checked
  EXPECT_EQ(query(&info), CUDNN_STATUS_BAD_PARAM);
  EXPECT_NE(message().find("the handle is null"), std::string::npos) << message();
  EXPECT_EQ(info.runCount, 0) << "a failed query reports no plan";

  UcudnnPlan plan;  // the C++ form goes through the same checks
  EXPECT_EQ(ucudnnGetPlan(null_handle, UCUDNN_OP_FORWARD, nullptr, nullptr, nullptr, nullptr,
                          UCUDNN_WORKSPACE_LIMIT_DEFAULT, &plan),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_TRUE(plan.runs.empty());
  EXPECT_EQ(ucudnnGetPlan(null_handle, UCUDNN_OP_FORWARD, nullptr, nullptr, nullptr, nullptr,
                          UCUDNN_WORKSPACE_LIMIT_DEFAULT, static_cast<UcudnnPlan*>(nullptr)),
            CUDNN_STATUS_BAD_PARAM);
}

// The sizes of this header and the arrays given: what a fresh UcudnnPlanInfo holds.
void expect_fresh(const UcudnnPlanInfo& info, const UcudnnMicroBatchRun* runs, int capacity) {
  EXPECT_EQ(info.structSize, sizeof(UcudnnPlanInfo));
  EXPECT_EQ(info.runStructSize, sizeof(UcudnnMicroBatchRun));
  EXPECT_EQ(info.runs, runs);
  EXPECT_EQ(info.runCapacity, capacity);
  EXPECT_EQ(info.replayedRuns, nullptr);
  EXPECT_EQ(info.replayedRunCapacity, 0);
}

TEST(PublicApi, InitPlanInfoSetsTheSizesOfThisHeader) {
  UcudnnPlanInfo info;
  std::memset(static_cast<void*>(&info), 0xff, sizeof info);  // poison it: init must overwrite
  UcudnnMicroBatchRun runs[3];
  ucudnnInitPlanInfo(&info, runs, 3, nullptr, 0);
  expect_fresh(info, runs, 3);
  EXPECT_EQ(info.runCount, 0);
  EXPECT_EQ(info.microBatchCount, 0);
}

}  // namespace

// A C++ declaration is a valid count-only query: 0.1 code that declared a UcudnnPlanInfo compiles
// against 0.2 and must not hand the library garbage sizes or pointers.
TEST(PublicApi, ADeclaredPlanInfoIsACountOnlyQueryInCpp) {
  UcudnnPlanInfo info;
  expect_fresh(info, nullptr, 0);
}
