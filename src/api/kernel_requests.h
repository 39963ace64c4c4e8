#pragma once
// The planner's request (runtime::KernelRequest) for each kind of call the front-ends make, built
// here and only here: which fields a kind sets, and where its workspace limits come from.
//   query           cudnnGet*/Find*: plans under the limit the call names (else the handle's
//                   default), capped by a forced limit; that limit is remembered for the kernel.
//   remembered      Get*WorkspaceSize, ucudnnGetPlan: under the limit the kernel's get/find asked
//                   for (remembered), else the handle's default.
//   convolution     a legacy Convolution* call: may use the workspace it is given (capped), plans
//                   under the remembered limit first; its stream, and whether it may benchmark
//                   and replay (not while the caller captures the stream).
//   graph_workspace a graph-API plan's workspace query: under the limit graph_plan_limits gave;
//                   may benchmark unless the stream is being captured.
//   graph_run       cudnnBackendExecute of a plan ucudnn took over: as a convolution, on the
//                   plan's key and limit, on the handle the program passed.

#include <cudnn.h>

#include <cstddef>
#include <optional>

#include "api/context.h"
#include "api/conv_call.h"
#include "runtime/planner.h"

namespace ucudnn::api {

/// A kernel as the planner sees it, before any limit: the call's key and the handle's settings.
Expected<runtime::KernelRequest> kernel_request(UcudnnContext* context, const ConvCall& call);

Expected<runtime::KernelRequest> query_request(UcudnnContext* context, const ConvCall& call,
                                               std::optional<std::size_t> named_limit);
Expected<runtime::KernelRequest> remembered_request(UcudnnContext* context, const ConvCall& call);
/// `request` comes from kernel_request (its key read once by the caller, who looks up what the
/// context remembers of it): this sets its limits and stream.
Status complete_convolution_request(UcudnnContext* context, const UcudnnContext::Remembered& remembered,
                                    std::size_t workspace_bytes, runtime::KernelRequest* request);
Status graph_workspace_request(UcudnnContext* context, cudnnHandle_t handle, const ConvKey& key, std::size_t limit,
                               runtime::KernelRequest* request);
/// Fills `request` in place (a caller's thread-local one: assigning the key keeps its vectors'
/// capacity, so the hot path allocates nothing).
Status graph_run_request(UcudnnContext* context, cudnnHandle_t handle, const ConvKey& key, std::size_t limit,
                         std::size_t workspace_bytes, runtime::KernelRequest* request);

}  // namespace ucudnn::api
