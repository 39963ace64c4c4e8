#pragma once
// ucudnnGetPlan's side of the ABI-stable plan query: checks the caller's UcudnnPlanInfo and
// writes a plan into it, within the caller's struct sizes and arrays. It sees plans as the
// optimizer makes them (MicroBatchSplit), so the CPU tests drive it with plans made by hand.

#include <cstddef>

#include "core/expected.h"
#include "optimize/wr_optimizer.h"
#include "ucudnn/ucudnn.h"

namespace ucudnn::api {
using ucudnn::optimize::MicroBatchSplit;


/// Where version 1 of each struct ends: a caller's structSize and runStructSize must reach these
/// (a later version adds fields after them, and writes those only where the caller's size holds
/// them).
constexpr std::size_t kPlanInfoSizeV1 = offsetof(UcudnnPlanInfo, microBatchCount) + sizeof(int);
constexpr std::size_t kMicroBatchRunSizeV1 = offsetof(UcudnnMicroBatchRun, engine) + UCUDNN_ENGINE_ID_MAX;

/// The caller's part of `info`: its sizes and arrays. Checked before anything is planned.
Status check_plan_info(const UcudnnPlanInfo* info);

/// What ucudnnGetPlan reports of a plan besides its runs.
struct PlanSummary {
  UcudnnConvolutionOp_t op = UCUDNN_OP_FORWARD;
  int batch = 0;
  UcudnnBatchSizePolicy_t policy = UCUDNN_BATCH_SIZE_POLICY_POWER_OF_TWO;
  std::size_t workspace_limit = 0;
  std::size_t workspace_bytes = 0;
  float predicted_time_ms = 0;
  float undivided_time_ms = -1;
};

/// What came after 0.2.0 at UcudnnPlanInfo's end: written only where the caller's structSize covers it.
constexpr std::size_t kPlanInfoSizeV2 = offsetof(UcudnnPlanInfo, sumsInFp32) + sizeof(int);
/// The same for UcudnnMicroBatchRun: written only where the caller's runStructSize covers it.
constexpr std::size_t kMicroBatchRunSizeV2 = offsetof(UcudnnMicroBatchRun, channelPieces) + sizeof(int);
constexpr std::size_t kMicroBatchRunSizeV3 = offsetof(UcudnnMicroBatchRun, inputChannelPieces) + sizeof(int);

/// Fills `info` (passed by check_plan_info): the summary and the counts, then the runs of `plan`
/// and of `replayed` (null: the same as `plan`, replayedRunCount 0) into the caller's arrays.
/// An array given but smaller than its count, or an engine id longer than UCUDNN_ENGINE_ID_MAX
/// allows, fails with the counts set and no array written.
Status write_plan_info(const PlanSummary& summary, const MicroBatchSplit& plan, const MicroBatchSplit* replayed,
                       UcudnnPlanInfo* info);

}  // namespace ucudnn::api
