// ucudnn.h as a C program sees it: tests/c/c_client.c, compiled as C99 (pedantic, warnings as
// errors), makes the calls and reports; here the report is checked against the C++ view.

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>

#include "../c/c_client.h"
#include "ucudnn/ucudnn.h"

namespace {

TEST(CApi, ACProgramSeesTheSameLayoutsAndVersion) {
  UcudnnCClientReport report;
  ucudnn_c_client_run(&report);
  EXPECT_EQ(report.version, UCUDNN_VERSION);
  EXPECT_EQ(report.headerVersion, UCUDNN_VERSION);
  EXPECT_EQ(report.handleSize, sizeof(UcudnnHandle_t));
  EXPECT_EQ(report.handleSize, sizeof(void*));
  EXPECT_EQ(report.planInfoSize, sizeof(UcudnnPlanInfo));
  EXPECT_EQ(report.runSize, sizeof(UcudnnMicroBatchRun));
  EXPECT_EQ(report.statisticsSize, sizeof(UcudnnStatistics));
  EXPECT_EQ(report.divisionInfoSize, sizeof(UcudnnWorkspaceDivisionInfo));
  EXPECT_EQ(report.virtualAlgorithms[0], static_cast<int>(CUDNN_CONVOLUTION_FWD_ALGO_COUNT));
  EXPECT_EQ(report.virtualAlgorithms[1], static_cast<int>(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT));
  EXPECT_EQ(report.virtualAlgorithms[2], static_cast<int>(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT));
  EXPECT_EQ(report.algorithmTableSize, static_cast<int>(CUDNN_CONVOLUTION_FWD_ALGO_COUNT) + 1);
}

TEST(CApi, ACProgramsCallsRefuseANullHandleCleanly) {
  UcudnnCClientReport report;
  ucudnn_c_client_run(&report);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) {
    EXPECT_EQ(report.createStatus, CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(report.handleNullAfterCreate, 0);
    EXPECT_EQ(report.destroyStatus, CUDNN_STATUS_SUCCESS);
  } else {
    EXPECT_NE(report.createStatus, CUDNN_STATUS_SUCCESS) << "no GPU: an error status, not a crash";
    EXPECT_EQ(report.handleNullAfterCreate, 1) << "a failed create leaves the handle as it was";
    EXPECT_EQ(report.destroyStatus, CUDNN_STATUS_BAD_PARAM);
  }
  EXPECT_EQ(report.nullHandlePolicyStatus, CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(report.nullHandleForwardStatus, CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(report.nullHandleFindStatus, CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(report.uninitializedPlanStatus, CUDNN_STATUS_BAD_PARAM);
  EXPECT_NE(std::string(report.uninitializedPlanMessage).find("UcudnnPlanInfo::structSize is 0"), std::string::npos)
      << report.uninitializedPlanMessage;
  EXPECT_EQ(report.nullHandlePlanStatus, CUDNN_STATUS_BAD_PARAM) << "checked struct, then the handle";
  EXPECT_EQ(report.statisticsStatus, CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(report.splitStatisticsStatus, CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(report.databaseStatus, CUDNN_STATUS_SUCCESS);
}

}  // namespace
