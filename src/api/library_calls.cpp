// ucudnn's own calls: handle settings and plan queries. Each has C linkage (ucudnn.h declares
// them in extern "C").

#include <cstddef>
#include <cstring>
#include <string>

#include "api/context.h"
#include "api/frontend.h"
#include "api/plan_query.h"
#include "api/public_enums.h"
#include "core/env_config.h"
#include "core/statistics.h"
#include "core/units.h"
#include "runtime/plan_builder.h"
#include "runtime/workspace_division.h"
#include "ucudnn/ucudnn.h"

using ucudnn::api::at_boundary;
using ucudnn::BatchSizePolicy;
using ucudnn::Error;
using ucudnn::ErrorCode;
using ucudnn::Status;

using ucudnn::api::to_internal;
using ucudnn::api::to_public;

cudnnStatus_t ucudnnSetBatchSizePolicy(UcudnnHandle_t handle, UcudnnBatchSizePolicy_t policy) {
  return at_boundary(__func__, [&]() -> Status {
    UCUDNN_TRY(ucudnn::api::require_context(handle.context));
    BatchSizePolicy internal;
    if (!to_internal(policy, &internal)) {
      return Error(ErrorCode::kBadParam, "unknown batch-size policy " + std::to_string(static_cast<int>(policy)));
    }
    handle.context->policy = internal;
    return Status::success();
  });
}

cudnnStatus_t ucudnnGetBatchSizePolicy(UcudnnHandle_t handle, UcudnnBatchSizePolicy_t* policy) {
  return at_boundary(__func__, [&]() -> Status {
    UCUDNN_TRY(ucudnn::api::require_context(handle.context));
    if (!policy) return Error(ErrorCode::kBadParam, "null policy pointer");
    *policy = to_public(handle.context->policy.load());
    return Status::success();
  });
}

cudnnStatus_t ucudnnSetCandidates(UcudnnHandle_t handle, UcudnnCandidates_t candidates) {
  return at_boundary(__func__, [&]() -> Status {
    UCUDNN_TRY(ucudnn::api::require_context(handle.context));
    ucudnn::CandidateSet internal;
    if (!to_internal(candidates, &internal)) {
      return Error(ErrorCode::kBadParam, "unknown candidate set " + std::to_string(static_cast<int>(candidates)));
    }
    handle.context->candidates = internal;
    return Status::success();
  });
}

cudnnStatus_t ucudnnGetCandidates(UcudnnHandle_t handle, UcudnnCandidates_t* candidates) {
  return at_boundary(__func__, [&]() -> Status {
    UCUDNN_TRY(ucudnn::api::require_context(handle.context));
    if (!candidates) return Error(ErrorCode::kBadParam, "null candidates pointer");
    *candidates = to_public(handle.context->candidates.load());
    return Status::success();
  });
}

cudnnStatus_t ucudnnSetGraphReplay(UcudnnHandle_t handle, int enabled) {
  return at_boundary(__func__, [&]() -> Status {
    UCUDNN_TRY(ucudnn::api::require_context(handle.context));
    if (enabled != 0 && enabled != 1) {
      return Error(ErrorCode::kBadParam, "graph replay is 0 (off) or 1 (on), not " + std::to_string(enabled));
    }
    handle.context->graph_replay = enabled == 1;
    return Status::success();
  });
}

cudnnStatus_t ucudnnGetGraphReplay(UcudnnHandle_t handle, int* enabled) {
  return at_boundary(__func__, [&]() -> Status {
    UCUDNN_TRY(ucudnn::api::require_context(handle.context));
    if (!enabled) return Error(ErrorCode::kBadParam, "null enabled pointer");
    *enabled = handle.context->graph_replay.load() ? 1 : 0;
    return Status::success();
  });
}

cudnnStatus_t ucudnnSetDefaultWorkspaceLimit(UcudnnHandle_t handle, size_t bytes) {
  return at_boundary(__func__, [&]() -> Status {
    UCUDNN_TRY(ucudnn::api::require_context(handle.context));
    handle.context->default_workspace_limit = bytes;
    return Status::success();
  });
}

cudnnStatus_t ucudnnGetDefaultWorkspaceLimit(UcudnnHandle_t handle, size_t* bytes) {
  return at_boundary(__func__, [&]() -> Status {
    UCUDNN_TRY(ucudnn::api::require_context(handle.context));
    if (!bytes) return Error(ErrorCode::kBadParam, "null size pointer");
    *bytes = handle.context->default_workspace_limit.load();
    return Status::success();
  });
}

cudnnStatus_t ucudnnGetPlan(UcudnnHandle_t handle, UcudnnConvolutionOp_t op, cudnnTensorDescriptor_t xDesc,
                            cudnnFilterDescriptor_t wDesc, cudnnConvolutionDescriptor_t convDesc,
                            cudnnTensorDescriptor_t yDesc, size_t workspaceLimit, UcudnnPlanInfo* info) {
  return at_boundary(__func__, [&]() -> Status {
    UCUDNN_TRY(ucudnn::api::check_plan_info(info));
    if (op != UCUDNN_OP_FORWARD && op != UCUDNN_OP_BACKWARD_DATA && op != UCUDNN_OP_BACKWARD_FILTER) {
      return Error(ErrorCode::kBadParam, "unknown convolution op " + std::to_string(static_cast<int>(op)));
    }
    const ucudnn::api::ConvCall call{static_cast<ucudnn::ConvOp>(op), {xDesc, wDesc, convDesc, yDesc}};
    std::optional<size_t> named_limit;
    if (workspaceLimit != UCUDNN_WORKSPACE_LIMIT_DEFAULT) named_limit = workspaceLimit;
    std::shared_ptr<const ucudnn::runtime::ExecutablePlan> plan;
    UCUDNN_TRY(ucudnn::api::describe_plan(handle.context, call, named_limit, &plan));
    ucudnn::api::PlanSummary summary;
    summary.op = op;
    summary.batch = plan->split().batch;
    summary.policy = to_public(plan->policy());
    summary.workspace_limit = plan->workspace_limit();
    summary.workspace_bytes = plan->workspace_wanted();
    summary.predicted_time_ms = static_cast<float>(plan->split().time_ms);
    summary.undivided_time_ms = plan->undivided_time_ms() ? static_cast<float>(*plan->undivided_time_ms()) : -1.0f;
    const bool replay_differs = &plan->replayed_plan() != plan.get();
    return ucudnn::api::write_plan_info(summary, plan->split(),
                                        replay_differs ? &plan->replayed_plan().split() : nullptr, info);
  });
}

cudnnStatus_t ucudnnSetDatabase(const char* path) {
  return at_boundary(
      __func__, [&]() -> Status { return ucudnn::runtime::PlanBuilder::instance().set_database(path ? path : ""); });
}

cudnnStatus_t ucudnnSetSystemDatabases(const char* paths) {
  return at_boundary(__func__, [&]() -> Status {
    UCUDNN_TRY_ASSIGN(std::vector<std::string> list, ucudnn::parse_system_databases(paths ? paths : ""));
    return ucudnn::runtime::PlanBuilder::instance().set_system_databases(std::move(list));
  });
}

cudnnStatus_t ucudnnGetDatabase(char* path, size_t pathSize, size_t* pathLength) {
  return at_boundary(__func__, [&]() -> Status {
    if (!path && pathSize > 0) {
      return Error(ErrorCode::kBadParam, "path is NULL but pathSize is " + std::to_string(pathSize));
    }
    const std::string current = ucudnn::runtime::PlanBuilder::instance().database_path();
    if (pathLength) *pathLength = current.size();
    if (!path) return Status::success();  // the length only
    if (pathSize <= current.size()) {
      if (pathSize > 0) path[0] = '\0';
      return Error(ErrorCode::kBadParam, "the database path has " + std::to_string(current.size()) +
                                             " characters: pathSize must be at least " +
                                             std::to_string(current.size() + 1) + ", not " + std::to_string(pathSize));
    }
    std::memcpy(path, current.c_str(), current.size() + 1);
    return Status::success();
  });
}

cudnnStatus_t ucudnnSetSearchMode(UcudnnSearchMode_t mode) {
  return at_boundary(__func__, [&]() -> Status {
    ucudnn::SearchMode internal;
    if (!to_internal(mode, &internal)) {
      return Error(ErrorCode::kBadParam, "unknown search mode " + std::to_string(static_cast<int>(mode)));
    }
    ucudnn::runtime::PlanBuilder::instance().set_search_mode(internal);
    return Status::success();
  });
}

cudnnStatus_t ucudnnGetSearchMode(UcudnnSearchMode_t* mode) {
  return at_boundary(__func__, [&]() -> Status {
    if (!mode) return Error(ErrorCode::kBadParam, "null mode pointer");
    *mode = to_public(ucudnn::runtime::PlanBuilder::instance().search_mode());
    return Status::success();
  });
}

cudnnStatus_t ucudnnSetTotalWorkspaceSize(size_t bytes) {
  return at_boundary(__func__, [&]() -> Status {
    if (bytes > 0 && bytes < ucudnn::kSmallestBareSize) {
      return Error(ErrorCode::kBadParam, std::to_string(bytes) +
                                                " bytes is below 1 MiB; the total workspace size is in bytes");
    }
    ucudnn::runtime::set_total_workspace(bytes);
    return Status::success();
  });
}

cudnnStatus_t ucudnnGetTotalWorkspaceSize(size_t* bytes) {
  return at_boundary(__func__, [&]() -> Status {
    if (!bytes) return Error(ErrorCode::kBadParam, "null size pointer");
    *bytes = ucudnn::runtime::total_workspace();
    return Status::success();
  });
}

cudnnStatus_t ucudnnOptimize(UcudnnHandle_t handle) {
  return at_boundary(__func__, [&]() -> Status {
    UCUDNN_TRY(ucudnn::api::require_context(handle.context));
    // WR mode: nothing to divide. A framework calls this after set-up whichever mode the user chose.
    if (ucudnn::runtime::total_workspace() == 0) return Status::success();
    return ucudnn::runtime::WorkspaceDivision::instance().optimize(handle.context->cudnn(), handle.context->device);
  });
}

cudnnStatus_t ucudnnSetLayerId(UcudnnHandle_t handle, int layerId) {
  return at_boundary(__func__, [&]() -> Status {
    UCUDNN_TRY(ucudnn::api::require_context(handle.context));
    if (layerId < -1) return Error(ErrorCode::kBadParam, "layer ids are -1 (none) or not negative");
    handle.context->layer_id = layerId;
    return Status::success();
  });
}

cudnnStatus_t ucudnnGetLayerId(UcudnnHandle_t handle, int* layerId) {
  return at_boundary(__func__, [&]() -> Status {
    UCUDNN_TRY(ucudnn::api::require_context(handle.context));
    if (!layerId) return Error(ErrorCode::kBadParam, "null layer id pointer");
    *layerId = handle.context->layer_id.load();
    return Status::success();
  });
}

cudnnStatus_t ucudnnGetWorkspaceDivisionInfo(UcudnnHandle_t handle, UcudnnWorkspaceDivisionInfo* info) {
  return at_boundary(__func__, [&]() -> Status {
    UCUDNN_TRY(ucudnn::api::require_context(handle.context));
    if (!info) return Error(ErrorCode::kBadParam, "null info pointer");
    const ucudnn::runtime::WdSummary s = ucudnn::runtime::WorkspaceDivision::instance().summary(handle.context->device);
    info->budgetBytes = ucudnn::runtime::total_workspace();
    info->bufferBytes = s.buffer_bytes;
    info->kernels = s.kernels;
    info->variables = s.variables;
    info->solveMs = static_cast<float>(s.solve_ms);
    info->predictedTimeMs = static_cast<float>(s.predicted_ms);
    info->optimizations = s.optimizations;
    return Status::success();
  });
}

cudnnStatus_t ucudnnGetStatistics(UcudnnStatistics* statistics) {
  return at_boundary(__func__, [&]() -> Status {
    if (!statistics) return Error(ErrorCode::kBadParam, "statistics is null");
    const auto& source = ucudnn::Statistics::instance();
    for (const ucudnn::ConvOp op : ucudnn::kConvOps) {
      const ucudnn::OpCounters c = source.read(op);
      UcudnnOpStatistics& s = statistics->op[static_cast<int>(op)];
      s.convolutionCalls = c.convolution_calls;
      s.splitCalls = c.split_calls;
      s.plainCalls = c.plain_calls;
      s.algorithmQueries = c.algorithm_queries;
      s.timings = c.timings;
      s.benchmarkSeconds = c.benchmark_seconds;
      s.solveSeconds = c.solve_seconds;
      s.replayedCalls = c.replayed_calls;
    }
    statistics->divisions = source.divisions();
    statistics->divisionSeconds = source.division_seconds();
    return Status::success();
  });
}

cudnnStatus_t ucudnnGetSplitStatistics(UcudnnSplitStatistics* statistics) {
  return at_boundary(__func__, [&]() -> Status {
    if (!statistics) return Error(ErrorCode::kBadParam, "statistics is null");
    // 0.2.0's struct ended at op[]; later fields are written where the caller's size holds them.
    constexpr std::size_t kFirstSize = offsetof(UcudnnSplitStatistics, paddedInputCalls);
    if (statistics->structSize < kFirstSize) {
      return Error(ErrorCode::kBadParam, "UcudnnSplitStatistics.structSize is " +
                                             std::to_string(statistics->structSize) + ", below this library's " +
                                             std::to_string(kFirstSize) + ": set it to sizeof(UcudnnSplitStatistics)");
    }
    const bool holds_padded = statistics->structSize >= sizeof(UcudnnSplitStatistics);
    for (const ucudnn::ConvOp op : ucudnn::kConvOps) {
      const ucudnn::OpCounters c = ucudnn::Statistics::instance().read(op);
      statistics->op[static_cast<int>(op)].channelPieceCalls = c.channel_piece_calls;
      statistics->op[static_cast<int>(op)].fp32SumCalls = c.fp32_sum_calls;
      if (holds_padded) statistics->paddedInputCalls[static_cast<int>(op)] = c.padded_input_calls;
    }
    return Status::success();
  });
}

cudnnStatus_t ucudnnGetSearchStatistics(UcudnnSearchStatistics* statistics) {
  return at_boundary(__func__, [&]() -> Status {
    using ucudnn::SearchCount;
    using ucudnn::SearchPhase;
    if (!statistics) return Error(ErrorCode::kBadParam, "statistics is null");
    if (statistics->structSize < sizeof(UcudnnSearchStatistics)) {
      return Error(ErrorCode::kBadParam, "UcudnnSearchStatistics.structSize is " +
                                             std::to_string(statistics->structSize) + ", not sizeof(UcudnnSearchStatistics) (" +
                                             std::to_string(sizeof(UcudnnSearchStatistics)) + ")");
    }
    for (const ucudnn::ConvOp op : ucudnn::kConvOps) {
      const ucudnn::SearchCounters c = ucudnn::Statistics::instance().read_search(op);
      UcudnnSearchPhases& s = statistics->op[static_cast<int>(op)];
      s.setupSeconds = c.phase(SearchPhase::kSetup);
      s.heuristicsSeconds = c.phase(SearchPhase::kHeuristics);
      s.findSeconds = c.phase(SearchPhase::kFind);
      s.planBuildSeconds = c.phase(SearchPhase::kPlanBuild);
      s.timingSeconds = c.phase(SearchPhase::kTiming);
      s.databaseSeconds = c.phase(SearchPhase::kDatabase);
      s.plansBuilt = c.count(SearchCount::kPlansBuilt);
      s.timedInFull = c.count(SearchCount::kTimedInFull);
      s.cutShort = c.count(SearchCount::kCutShort);
      s.notTimed = c.count(SearchCount::kNotTimed);
      s.sizesMeasured = c.count(SearchCount::kSizesMeasured);
      s.sizesSkipped = c.count(SearchCount::kSizesSkipped);
    }
    return Status::success();
  });
}

const char* ucudnnGetLastErrorMessage(void) { return ucudnn::api::last_error_message(); }

int ucudnnGetVersion(void) { return UCUDNN_VERSION; }
