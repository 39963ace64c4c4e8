#pragma once
// What the graph-API front-end (api/graph/frontend.h) asks of a handle for a plan of one
// convolution: the limits the plan may take, the workspace ucudnn's plan needs, and its run.

#include <cudnn.h>

#include <cstddef>

#include "api/context.h"
#include "core/conv_key.h"
#include "core/expected.h"
#include "core/memory_budget.h"
#include "runtime/executor.h"

namespace ucudnn::api {

/// Graph API: what a plan of one convolution may take on this handle now. A plan the program
/// built that needs no more than `keep_within` runs as it is; ucudnn plans one that needs more
/// under `plan_under`. Under the memory budget (core/memory_budget.h: what is free, or left of
/// the program's budget, on the handle's device), its BudgetLimits. Where the limit is fixed
/// instead (forced, or the budget off: the default limit), both are that limit, nothing more is
/// reachable, and every plan over it is ucudnn's; under a budget, one plan per kernel stands in
/// (api/graph/frontend.h).
struct GraphPlanLimits : BudgetLimits {
  bool fixed = false;
};
Status graph_plan_limits(const UcudnnContext* context, GraphPlanLimits* limits);

/// Graph API (a plan of one convolution): the workspace ucudnn's plan for `key` needs under
/// `limit`, which the program then allocates. Not benchmarked while `handle`'s stream is being
/// captured (then only a plan made before answers).
Status graph_workspace(UcudnnContext* context, cudnnHandle_t handle, const ConvKey& key, std::size_t limit,
                       std::size_t* bytes);

/// Graph API: runs ucudnn's plan for `key` under `limit` (graph_workspace's) on `handle`'s stream
/// with the program's pointers and the workspace it allocated for graph_workspace's answer. No
/// fallback here: the caller decides.
Status run_graph_convolution(UcudnnContext* context, cudnnHandle_t handle, const ConvKey& key, std::size_t limit,
                             double alpha, double beta, const runtime::ConvBuffers& buffers, void* workspace,
                             std::size_t workspace_bytes);

}  // namespace ucudnn::api
