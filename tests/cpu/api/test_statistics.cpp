// The statistics (core/statistics.h) as ucudnnGetStatistics gives them to a program and as the
// report at exit prints them.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "core/statistics.h"
#include "ucudnn/ucudnn.h"

namespace {

TEST(Statistics, CountsPerOperationAndReportsThem) {
  UcudnnStatistics before;
  ASSERT_EQ(ucudnnGetStatistics(&before), CUDNN_STATUS_SUCCESS);
  auto& statistics = ucudnn::Statistics::instance();
  UcudnnSplitStatistics kinds_before{sizeof(UcudnnSplitStatistics), {}, {}};
  ASSERT_EQ(ucudnnGetSplitStatistics(&kinds_before), CUDNN_STATUS_SUCCESS);
  statistics.count_execution(ucudnn::ConvOp::kBackwardData, ucudnn::ExecutedSplit{4});
  statistics.count_execution(ucudnn::ConvOp::kBackwardData, ucudnn::ExecutedSplit{1}, /*replayed=*/true);
  statistics.count_execution(ucudnn::ConvOp::kBackwardData, ucudnn::ExecutedSplit{1, /*channel_pieces=*/true});
  statistics.count_execution(ucudnn::ConvOp::kBackwardFilter,
                             ucudnn::ExecutedSplit{2, /*channel_pieces=*/true, /*fp32_sums=*/true});
  statistics.count_execution(ucudnn::ConvOp::kForward, ucudnn::ExecutedSplit{2, false, false, /*padded_input=*/true});
  statistics.count_plain(ucudnn::ConvOp::kBackwardData);
  statistics.count_query(ucudnn::ConvOp::kForward);
  statistics.add_benchmarking(ucudnn::ConvOp::kBackwardFilter, 0.25, 7);
  statistics.add_solving(ucudnn::ConvOp::kBackwardFilter, 0.5);
  statistics.add_division(0.125);
  UcudnnStatistics after;
  ASSERT_EQ(ucudnnGetStatistics(&after), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(after.op[UCUDNN_OP_BACKWARD_DATA].convolutionCalls - before.op[UCUDNN_OP_BACKWARD_DATA].convolutionCalls, 4);
  EXPECT_EQ(after.op[UCUDNN_OP_BACKWARD_DATA].splitCalls - before.op[UCUDNN_OP_BACKWARD_DATA].splitCalls, 1);
  EXPECT_EQ(after.op[UCUDNN_OP_BACKWARD_FILTER].splitCalls - before.op[UCUDNN_OP_BACKWARD_FILTER].splitCalls, 1);
  EXPECT_EQ(after.op[UCUDNN_OP_BACKWARD_DATA].plainCalls - before.op[UCUDNN_OP_BACKWARD_DATA].plainCalls, 1);
  EXPECT_EQ(after.op[UCUDNN_OP_BACKWARD_DATA].replayedCalls - before.op[UCUDNN_OP_BACKWARD_DATA].replayedCalls, 1);
  EXPECT_EQ(after.op[UCUDNN_OP_FORWARD].algorithmQueries - before.op[UCUDNN_OP_FORWARD].algorithmQueries, 1);
  EXPECT_EQ(after.op[UCUDNN_OP_FORWARD].convolutionCalls - before.op[UCUDNN_OP_FORWARD].convolutionCalls, 1);
  EXPECT_EQ(after.op[UCUDNN_OP_BACKWARD_FILTER].timings - before.op[UCUDNN_OP_BACKWARD_FILTER].timings, 7);
  EXPECT_NEAR(after.op[UCUDNN_OP_BACKWARD_FILTER].benchmarkSeconds - before.op[UCUDNN_OP_BACKWARD_FILTER].benchmarkSeconds,
              0.25, 1e-6);
  EXPECT_NEAR(after.op[UCUDNN_OP_BACKWARD_FILTER].solveSeconds - before.op[UCUDNN_OP_BACKWARD_FILTER].solveSeconds,
              0.5, 1e-6);
  EXPECT_EQ(after.divisions - before.divisions, 1);
  EXPECT_NEAR(after.divisionSeconds - before.divisionSeconds, 0.125, 1e-6);

  UcudnnSplitStatistics kinds{sizeof(UcudnnSplitStatistics), {}, {}};
  ASSERT_EQ(ucudnnGetSplitStatistics(&kinds), CUDNN_STATUS_SUCCESS);
  auto kind = [&](UcudnnConvolutionOp_t op, long long UcudnnSplitKinds::*field) {
    return kinds.op[op].*field - kinds_before.op[op].*field;
  };
  EXPECT_EQ(kind(UCUDNN_OP_BACKWARD_DATA, &UcudnnSplitKinds::channelPieceCalls), 1);
  EXPECT_EQ(kind(UCUDNN_OP_BACKWARD_DATA, &UcudnnSplitKinds::fp32SumCalls), 0);
  EXPECT_EQ(kind(UCUDNN_OP_BACKWARD_FILTER, &UcudnnSplitKinds::channelPieceCalls), 1);
  EXPECT_EQ(kind(UCUDNN_OP_BACKWARD_FILTER, &UcudnnSplitKinds::fp32SumCalls), 1);
  EXPECT_EQ(kind(UCUDNN_OP_FORWARD, &UcudnnSplitKinds::channelPieceCalls), 0);
  EXPECT_EQ(kinds.paddedInputCalls[UCUDNN_OP_FORWARD] - kinds_before.paddedInputCalls[UCUDNN_OP_FORWARD], 1);
  EXPECT_EQ(
      kinds.paddedInputCalls[UCUDNN_OP_BACKWARD_FILTER] - kinds_before.paddedInputCalls[UCUDNN_OP_BACKWARD_FILTER], 0);
  // 0.2.0's struct (without paddedInputCalls) is still filled, and its end left alone.
  UcudnnSplitStatistics older{offsetof(UcudnnSplitStatistics, paddedInputCalls), {}, {-7, -7, -7}};
  ASSERT_EQ(ucudnnGetSplitStatistics(&older), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(older.op[UCUDNN_OP_BACKWARD_FILTER].fp32SumCalls, kinds.op[UCUDNN_OP_BACKWARD_FILTER].fp32SumCalls);
  EXPECT_EQ(older.paddedInputCalls[UCUDNN_OP_FORWARD], -7);
  kinds.structSize = offsetof(UcudnnSplitStatistics, paddedInputCalls) - 1;
  EXPECT_EQ(ucudnnGetSplitStatistics(&kinds), CUDNN_STATUS_BAD_PARAM) << "structSize too small";
  EXPECT_EQ(ucudnnGetSplitStatistics(nullptr), CUDNN_STATUS_BAD_PARAM);

  const std::string report = statistics.report();
  EXPECT_NE(report.find("pieces  fp32-sums     padded"), std::string::npos) << report;
  EXPECT_NE(report.find("ucudnn: bwdd "), std::string::npos) << report;
  EXPECT_NE(report.find("workspace divisions"), std::string::npos) << report;
  EXPECT_EQ(ucudnnGetStatistics(nullptr), CUDNN_STATUS_BAD_PARAM);
}

}  // namespace
