#include "api/plan_query.h"

#include <cstring>
#include <string>

namespace ucudnn::api {
using ucudnn::optimize::MicroBatchRun;

namespace {

Status check_array(const char* name, const UcudnnMicroBatchRun* runs, int capacity) {
  if (capacity < 0)
    return Error(ErrorCode::kBadParam, std::string("UcudnnPlanInfo: ") + name + " capacity is negative");
  if (!runs && capacity > 0) {
    return Error(ErrorCode::kBadParam,
                 std::string("UcudnnPlanInfo: ") + name + " is NULL but its capacity is " + std::to_string(capacity));
  }
  return Status::success();
}

// Whether the caller's array takes `count` runs: none given (a count query), or large enough.
Status check_room(const char* name, const UcudnnMicroBatchRun* runs, int capacity, int count) {
  if (!runs || count <= capacity) return Status::success();
  return Error(ErrorCode::kBadParam, std::string("UcudnnPlanInfo: the plan has ") + std::to_string(count) + " " + name +
                                         " but the array holds " + std::to_string(capacity) +
                                         "; call again with at least as many (the count is set)");
}

Status check_engine_ids(const MicroBatchSplit& plan) {
  for (const MicroBatchRun& run : plan.runs) {
    const std::string& id = run.candidate().engine_id;
    if (id.size() >= UCUDNN_ENGINE_ID_MAX) {
      return Error(ErrorCode::kNotSupported, "engine configuration id '" + id.substr(0, 40) + "...' is " +
                                                 std::to_string(id.size()) +
                                                 " characters; UcudnnMicroBatchRun::engine holds " +
                                                 std::to_string(UCUDNN_ENGINE_ID_MAX - 1) + " (UCUDNN_ENGINE_ID_MAX)");
    }
  }
  return Status::success();
}

// Each run written whole (version 1's fields, and later versions' where the caller's element holds
// them), `stride` bytes apart: the caller's element size.
void copy_runs(const MicroBatchSplit& plan, UcudnnMicroBatchRun* runs, std::size_t stride) {
  if (!runs) return;
  auto* out = reinterpret_cast<unsigned char*>(runs);
  for (const MicroBatchRun& run : plan.runs) {
    const Candidate& c = run.candidate();
    UcudnnMicroBatchRun r{};
    r.size = run.size();
    r.algo = c.algorithm;
    r.mathType = static_cast<cudnnMathType_t>(c.math_type);
    r.count = run.count;
    r.timeMs = static_cast<float>(run.call_ms);
    r.workspaceBytes = run.row.workspace_bytes;
    std::memcpy(r.engine, c.engine_id.c_str(), c.engine_id.size() + 1);  // fits: check_engine_ids
    r.channelPieces = c.channel_pieces;
    r.paddedChannels = c.padded_channels;
    r.inputChannelPieces = c.input_pieces;
    const std::size_t written = stride >= kMicroBatchRunSizeV3   ? kMicroBatchRunSizeV3
                                : stride >= kMicroBatchRunSizeV2 ? kMicroBatchRunSizeV2
                                                                 : kMicroBatchRunSizeV1;
    std::memcpy(out, &r, written);
    out += stride;
  }
}

}  // namespace

Status check_plan_info(const UcudnnPlanInfo* info) {
  if (!info) return Error(ErrorCode::kBadParam, "null plan pointer");
  if (info->structSize < kPlanInfoSizeV1) {
    return Error(ErrorCode::kBadParam, "UcudnnPlanInfo::structSize is " + std::to_string(info->structSize) +
                                           ", below this library's " + std::to_string(kPlanInfoSizeV1) +
                                           ": set it to sizeof(UcudnnPlanInfo) (ucudnnInitPlanInfo does)");
  }
  if (info->runStructSize < kMicroBatchRunSizeV1) {
    return Error(ErrorCode::kBadParam, "UcudnnPlanInfo::runStructSize is " + std::to_string(info->runStructSize) +
                                           ", below this library's " + std::to_string(kMicroBatchRunSizeV1) +
                                           ": set it to sizeof(UcudnnMicroBatchRun) (ucudnnInitPlanInfo does)");
  }
  UCUDNN_TRY(check_array("runs", info->runs, info->runCapacity));
  return check_array("replayedRuns", info->replayedRuns, info->replayedRunCapacity);
}

Status write_plan_info(const PlanSummary& summary, const MicroBatchSplit& plan, const MicroBatchSplit* replayed,
                       UcudnnPlanInfo* info) {
  info->op = summary.op;
  info->batch = summary.batch;
  info->policy = summary.policy;
  info->workspaceLimit = summary.workspace_limit;
  info->workspaceBytes = summary.workspace_bytes;
  info->predictedTimeMs = summary.predicted_time_ms;
  info->undividedTimeMs = summary.undivided_time_ms;
  info->runCount = static_cast<int>(plan.runs.size());
  info->replayedRunCount = replayed ? static_cast<int>(replayed->runs.size()) : 0;
  info->microBatchCount = plan.micro_batch_count();
  if (info->structSize >= kPlanInfoSizeV2) info->sumsInFp32 = plan.sums_in_fp32 ? 1 : 0;
  UCUDNN_TRY(check_room("runs", info->runs, info->runCapacity, info->runCount));
  UCUDNN_TRY(check_room("replayed runs", info->replayedRuns, info->replayedRunCapacity, info->replayedRunCount));
  if (info->runs) UCUDNN_TRY(check_engine_ids(plan));
  if (info->replayedRuns && replayed) UCUDNN_TRY(check_engine_ids(*replayed));
  copy_runs(plan, info->runs, info->runStructSize);
  if (replayed) copy_runs(*replayed, info->replayedRuns, info->runStructSize);
  return Status::success();
}

}  // namespace ucudnn::api
