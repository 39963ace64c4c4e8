#pragma once
// The op-generic front-end shared by every interception layer (the UcudnnHandle_t overloads
// now, an LD_PRELOAD layer later). It turns a cuDNN-shaped call into engine requests and answers
// in cuDNN's terms. Errors never escape as exceptions: everything returns a Status.

#include <cudnn.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "api/context.h"
#include "runtime/cuda_status.h"
#include "runtime/cudnn_shim.h"
#include "runtime/descriptors.h"
#include "runtime/executor.h"

namespace ucudnn {

/// A new context with its own cuDNN handle on the current device, configured from the
/// environment (a bad variable: CUDNN_STATUS_BAD_PARAM naming it).
Status create_context(UcudnnContext** out);
/// Destroys the context and its cuDNN handle.
Status destroy_context(UcudnnContext* context);

/// One convolution as the caller described it.
struct ConvCall {
  ConvOp op;
  ConvDescriptors descriptors;
};

/// The virtual algorithm value of an op ("run the micro-batch plan").
int virtual_algo(ConvOp op);

/// Plain cuDNN's answer to the same query: what get/find calls fall back to.
using PlainQuery = std::function<Status(std::vector<AlgoPerf>*)>;

/// Get/find: plans under `limit` (nullopt: the handle's default) and lists the plan first, then
/// the real algorithms measured at the full batch within the limit, fastest first.
Status choose_algorithms(UcudnnContext* context, const ConvCall& call, std::optional<std::size_t> limit,
                         int requested, std::vector<AlgoPerf>* results, const PlainQuery& plain);

/// Get*WorkspaceSize: the plan's workspace for the virtual algorithm, cuDNN's for a real one.
Status query_workspace_size(UcudnnContext* context, const ConvCall& call, int algo, std::size_t* bytes);

/// Convolution*: runs the plan that fits the given workspace (see ucudnn.h).
Status run_convolution(UcudnnContext* context, const ConvCall& call, int algo, const void* alpha,
                       const ConvBuffers& buffers, void* workspace, std::size_t workspace_bytes, const void* beta);

/// The plan a handle would run for a convolution (ucudnnGetPlan).
Status describe_plan(UcudnnContext* context, const ConvCall& call, std::optional<std::size_t> limit,
                     std::shared_ptr<const ExecutablePlan>* plan);

/// Runs `body` and converts its Status (or an escaping exception) into a cudnnStatus_t, keeping
/// the message for ucudnnGetLastErrorMessage.
cudnnStatus_t at_boundary(const char* function, const std::function<Status()>& body) noexcept;

/// The message of this thread's last failed boundary call ("" if none).
const char* last_error_message();

}  // namespace ucudnn
