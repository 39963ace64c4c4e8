/* A C99 program of ucudnn: compiled with -std=c99 -pedantic -Werror (tests/CMakeLists.txt), so
   that ucudnn.h stays valid C, and run by the CPU tests (test_c_api.cpp), which check what it
   reports. Without a GPU every handle is NULL and each call must refuse it cleanly. */

#include "c_client.h"

#include <string.h>

#include "ucudnn/ucudnn.h"

/* The virtual algorithm's index found through a switch: its value is a constant expression. */
static int forward_index(cudnnConvolutionFwdAlgo_t algo) {
  switch (algo) {
    case UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED: return (int)CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
    default: return (int)algo;
  }
}

void ucudnn_c_client_run(UcudnnCClientReport* report) {
  UcudnnHandle_t handle = {NULL};
  UcudnnHandle_t null_handle = {NULL};
  UcudnnPlanInfo plan;
  UcudnnMicroBatchRun runs[4];
  UcudnnStatistics statistics;
  UcudnnSplitStatistics split_statistics;
  /* A table indexed by algorithm, the virtual one included. */
  float time_by_algorithm[CUDNN_CONVOLUTION_FWD_ALGO_COUNT + 1];
  int returned = 0;
  cudnnConvolutionBwdFilterAlgoPerf_t perf[2];
  const float one = 1.0f, zero = 0.0f;

  memset(report, 0, sizeof *report);
  report->version = ucudnnGetVersion();
  report->headerVersion = UCUDNN_VERSION;
  report->handleSize = sizeof(UcudnnHandle_t);
  report->planInfoSize = sizeof(UcudnnPlanInfo);
  report->runSize = sizeof(UcudnnMicroBatchRun);
  report->statisticsSize = sizeof(UcudnnStatistics);
  report->divisionInfoSize = sizeof(UcudnnWorkspaceDivisionInfo);

  report->createStatus = (int)ucudnnCreate(&handle);
  report->handleNullAfterCreate = handle.context == NULL;
  report->destroyStatus = (int)ucudnnDestroy(handle);

  report->nullHandlePolicyStatus = (int)ucudnnSetBatchSizePolicy(null_handle, UCUDNN_BATCH_SIZE_POLICY_ALL);
  report->nullHandleForwardStatus =
      (int)ucudnnConvolutionForward(null_handle, &one, NULL, NULL, NULL, NULL, NULL,
                                    UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED, NULL, 0, &zero, NULL, NULL);
  report->nullHandleFindStatus =
      (int)ucudnnFindConvolutionBackwardFilterAlgorithm(null_handle, NULL, NULL, NULL, NULL, 2, &returned, perf);

  memset(&plan, 0, sizeof plan); /* structSize 0: not initialized */
  report->uninitializedPlanStatus =
      (int)ucudnnGetPlan(null_handle, UCUDNN_OP_FORWARD, NULL, NULL, NULL, NULL, UCUDNN_WORKSPACE_LIMIT_DEFAULT, &plan);
  strncpy(report->uninitializedPlanMessage, ucudnnGetLastErrorMessage(), sizeof report->uninitializedPlanMessage - 1);
  ucudnnInitPlanInfo(&plan, runs, 4, NULL, 0);
  report->nullHandlePlanStatus =
      (int)ucudnnGetPlan(null_handle, UCUDNN_OP_FORWARD, NULL, NULL, NULL, NULL, UCUDNN_WORKSPACE_LIMIT_DEFAULT, &plan);

  report->virtualAlgorithms[0] = forward_index(UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED);
  report->virtualAlgorithms[1] = (int)UCUDNN_CONVOLUTION_BWD_DATA_ALGO_MICRO_BATCHED;
  report->virtualAlgorithms[2] = (int)UCUDNN_CONVOLUTION_BWD_FILTER_ALGO_MICRO_BATCHED;
  time_by_algorithm[UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED] = 1.0f;
  report->algorithmTableSize = (int)(sizeof time_by_algorithm / sizeof time_by_algorithm[0]);
  (void)time_by_algorithm[UCUDNN_CONVOLUTION_FWD_ALGO_MICRO_BATCHED];

  report->statisticsStatus = (int)ucudnnGetStatistics(&statistics);
  memset(&split_statistics, 0, sizeof split_statistics);
  split_statistics.structSize = sizeof split_statistics;
  report->splitStatisticsStatus = (int)ucudnnGetSplitStatistics(&split_statistics);
  report->databaseStatus = (int)ucudnnGetDatabase(NULL, 0, NULL);
}
