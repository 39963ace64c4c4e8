#pragma once
/* A C program's use of ucudnn.h (c_client.c, compiled as C99), reported to the CPU tests. */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct UcudnnCClientReport {
  int version;       /* ucudnnGetVersion() */
  int headerVersion; /* UCUDNN_VERSION as the C compiler saw it */
  size_t handleSize; /* sizeof of the public structs in C */
  size_t planInfoSize;
  size_t runSize;
  size_t statisticsSize;
  size_t divisionInfoSize;
  int createStatus;            /* ucudnnCreate */
  int handleNullAfterCreate;   /* 1: the handle is still NULL */
  int destroyStatus;           /* ucudnnDestroy of what create made (a NULL handle if it failed) */
  int nullHandlePolicyStatus;  /* ucudnnSetBatchSizePolicy(NULL handle) */
  int nullHandleForwardStatus; /* ucudnnConvolutionForward(NULL handle, ...) */
  int nullHandleFindStatus;    /* ucudnnFindConvolutionBackwardFilterAlgorithm(NULL handle, ...) */
  int uninitializedPlanStatus; /* ucudnnGetPlan with structSize 0 */
  char uninitializedPlanMessage[256];
  int nullHandlePlanStatus; /* ucudnnGetPlan with an initialized UcudnnPlanInfo, NULL handle */
  int virtualAlgorithms[3]; /* the *_MICRO_BATCHED values (forward: through its case label) */
  int algorithmTableSize;   /* CUDNN_CONVOLUTION_FWD_ALGO_COUNT + 1 entries */
  int statisticsStatus;     /* ucudnnGetStatistics */
  int splitStatisticsStatus; /* ucudnnGetSplitStatistics with structSize set */
  int databaseStatus;       /* ucudnnGetDatabase, a length query */
} UcudnnCClientReport;

void ucudnn_c_client_run(UcudnnCClientReport* report);

#ifdef __cplusplus
}
#endif
