#include "api/frontend.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <new>
#include <string>

#include "api/kernel_requests.h"
#include "api/plain_fallback.h"
#include "core/env_config.h"
#include "core/internal_call.h"
#include "core/logging.h"
#include "core/statistics.h"
#include "runtime/cuda_status.h"
#include "runtime/device_info.h"
#include "runtime/scaling_factors.h"

namespace ucudnn::api {

namespace {

thread_local std::string last_error;

// What plain cuDNN would run within a workspace: the first heuristic answer that fits.
Status plain_choice(UcudnnContext* context, const ConvCall& call, std::size_t workspace_bytes, AlgoPerf* out) {
  std::vector<AlgoPerf> fitting;
  UCUDNN_TRY(heuristics_within(context->cudnn(), call, workspace_bytes, &fitting));
  if (fitting.empty()) {
    return Error(ErrorCode::kNotSupported,
                 "no cuDNN algorithm fits " + std::to_string(workspace_bytes) + " bytes of workspace");
  }
  *out = fitting.front();
  return Status::success();
}

Status run_plain(UcudnnContext* context, const ConvCall& call, int algo, const void* alpha, const ConvBuffers& buffers,
                 void* workspace, std::size_t workspace_bytes, const void* beta) {
  if (algo == runtime::virtual_algo(call.op)) {
    AlgoPerf choice;
    UCUDNN_TRY(plain_choice(context, call, workspace_bytes, &choice));
    algo = choice.algo;
  }
  Statistics::instance().count_plain(call.op);
  return runtime::convolve(context->cudnn(), call.op, call.descriptors, algo, alpha, buffers, workspace,
                           workspace_bytes, beta);
}

}  // namespace

Status require_context(const UcudnnContext* context) {
  if (!context) return Error(ErrorCode::kBadParam, "the handle is null");
  return Status::success();
}

Status heuristics_within(cudnnHandle_t handle, const ConvCall& call, std::size_t workspace_bytes,
                         std::vector<AlgoPerf>* out) {
  std::vector<AlgoPerf> heuristics;
  UCUDNN_TRY(runtime::get_algorithms(handle, call.op, call.descriptors, &heuristics));
  for (const AlgoPerf& p : heuristics) {
    if (p.status == CUDNN_STATUS_SUCCESS && p.memory <= workspace_bytes) out->push_back(p);
  }
  return Status::success();
}

Status create_context(UcudnnContext** out) {
  const auto& config = env_config();
  UCUDNN_TRY(config);  // the front-end reports the failure (report_failed_create)
  for (const std::string& deprecation : config->deprecations) warn_once(deprecation, deprecation);
  if (!config->benchmark_devices.empty()) {  // the syntax is checked already; now the device numbers
    int devices = 0;
    UCUDNN_CHECK_CUDA(cudaGetDeviceCount(&devices));
    UCUDNN_TRY(runtime::parse_benchmark_devices(config->benchmark_devices, devices));
  }
  auto context = std::make_unique<UcudnnContext>(*config);
  const cudaError_t device_found = cudaGetDevice(&context->device);
  if (device_found == cudaErrorInsufficientDriver || device_found == cudaErrorNoDevice) {
    (void)cudaGetLastError();
    // The usual cause is no driver, or no visible device, not an old driver: say so, not where.
    return Error(ErrorCode::kExecutionFailed,
                 std::string("no GPU is usable here (") + cudaGetErrorName(device_found) +
                     "): no NVIDIA driver is loaded, it is older than this CUDA runtime, or none of its GPUs is "
                     "visible (CUDA_VISIBLE_DEVICES); cuDNN itself cannot run here either");
  }
  UCUDNN_CHECK_CUDA(device_found);
  cudnnHandle_t raw = nullptr;
  UCUDNN_CHECK_CUDNN(cudnnCreate(&raw));
  context->cudnn_handle.reset(raw);
  // The WD budget is process-wide: the environment sets it once, ucudnnSetTotalWorkspaceSize after.
  static std::once_flag budget_from_environment;
  std::call_once(budget_from_environment, [&] {
    if (config->total_workspace > 0) runtime::set_total_workspace(config->total_workspace);
  });
  if (config->print_statistics) Statistics::instance().print_at_exit();
  if (!config->forced_workspace_limit && config->memory_budget.kind != MemoryBudget::Kind::kOff) {
    DeviceMemory memory;  // only a budget needs it (graph_plan_limits)
    UCUDNN_TRY(runtime::device_memory(context->device, &memory));
    in_use_at_handle_creation().record(context->device, memory.in_use());
  }
  *out = context.release();
  return Status::success();
}

Status destroy_context(UcudnnContext* context) {
  UCUDNN_TRY(require_context(context));
  std::unique_ptr<UcudnnContext> owned(context);
  // Destroyed here, not by the owner, so that a failure is reported.
  UCUDNN_CHECK_CUDNN(cudnnDestroy(owned->cudnn_handle.release()));
  return Status::success();
}

Status choose_algorithms(UcudnnContext* context, const ConvCall& call, std::optional<std::size_t> named_limit,
                         int requested, std::vector<AlgoPerf>* results, const PlainQuery& plain) {
  UCUDNN_TRY(require_context(context));
  if (requested <= 0) return Error(ErrorCode::kBadParam, "requestedAlgoCount must be positive");
  Statistics::instance().count_query(call.op);
  results->clear();
  const Status planned = [&]() -> Status {
    UCUDNN_TRY_ASSIGN(const runtime::KernelRequest request, query_request(context, call, named_limit));
    UCUDNN_TRY(runtime::active_planner().offer(request, requested, results));
    context->remember_offer(request.key);
    return Status::success();
  }();
  if (planned.ok()) return planned;
  results->clear();
  return plain_cudnn_instead(call.op, planned, [&]() -> Status {
    UCUDNN_TRY(plain(results));
    if (static_cast<int>(results->size()) > requested) results->resize(requested);
    return Status::success();
  });
}

namespace {

// An algorithm the program chose itself (Darknet's fixed half-precision algorithms), for a kernel
// that was never offered a plan: run_convolution runs ucudnn's plan for it, so under a forced limit
// the program is told that plan's workspace, within the limit, and allocates no more. Where no plan
// can be made, the algorithm's own size stands: its call then runs plain cuDNN.
Status chosen_algorithm_workspace(UcudnnContext* context, const ConvCall& call, int algo, std::size_t* bytes) {
  UCUDNN_TRY(runtime::workspace_size(context->cudnn(), call.op, call.descriptors, algo, bytes));
  const std::optional<std::size_t>& forced = context->settings.forced_workspace_limit;
  if (!forced || *bytes <= *forced) return Status::success();
  Expected<runtime::KernelRequest> request = kernel_request(context, call);
  if (!request || context->remembered(request->key).offered) return Status::success();
  request->requested_limit = *forced;
  std::size_t planned = 0;
  if (!runtime::active_planner().workspace(*request, &planned).ok()) return Status::success();
  context->remember_limit(request->key, request->requested_limit);  // the call runs this plan
  *bytes = planned;
  return Status::success();
}

}  // namespace

Status query_workspace_size(UcudnnContext* context, const ConvCall& call, int algo, std::size_t* bytes) {
  UCUDNN_TRY(require_context(context));
  if (algo != runtime::virtual_algo(call.op)) return chosen_algorithm_workspace(context, call, algo, bytes);
  std::size_t requested_limit = context->requested_limit_for(std::nullopt);
  const Status planned = [&]() -> Status {
    UCUDNN_TRY_ASSIGN(const runtime::KernelRequest request, remembered_request(context, call));
    requested_limit = request.requested_limit;
    return runtime::active_planner().workspace(request, bytes);
  }();
  if (planned.ok()) return planned;
  return plain_cudnn_instead(call.op, planned, [&]() -> Status {
    AlgoPerf choice;
    UCUDNN_TRY(plain_choice(context, call, requested_limit, &choice));
    *bytes = choice.memory;
    return Status::success();
  });
}

Status run_convolution(UcudnnContext* context, const ConvCall& call, int algo, const void* alpha,
                       const ConvBuffers& buffers, void* workspace, std::size_t workspace_bytes, const void* beta) {
  UCUDNN_TRY(require_context(context));
  Expected<runtime::KernelRequest> request = kernel_request(context, call);
  const UcudnnContext::Remembered remembered =
      request ? context->remembered(request->key) : UcudnnContext::Remembered{};
  if (request && algo != runtime::virtual_algo(call.op) && remembered.offered) {
    // Offered the plan, the caller chose a real algorithm (a framework keeping only deterministic
    // algorithms, say): its choice stands.
    return run_plain(context, call, algo, alpha, buffers, workspace, workspace_bytes, beta);
  }
  const Status planned = [&]() -> Status {
    if (!request) return request.error();
    UCUDNN_TRY(complete_convolution_request(context, remembered, workspace_bytes, &*request));
    return runtime::active_planner().run(*request, alpha, beta, buffers, workspace, workspace_bytes);
  }();
  if (planned.ok()) return planned;
  return plain_cudnn_instead(call.op, planned, [&] {
    return run_plain(context, call, algo, alpha, buffers, workspace, workspace_bytes, beta);
  });
}

Status describe_plan(UcudnnContext* context, const ConvCall& call, std::optional<std::size_t> named_limit,
                     std::shared_ptr<const ExecutablePlan>* plan) {
  UCUDNN_TRY(require_context(context));
  UCUDNN_TRY_ASSIGN(const runtime::KernelRequest request, remembered_request(context, call));
  // A limit the query names is capped as a call's would be, so it describes what calls run.
  if (named_limit) named_limit = context->requested_limit_for(named_limit);
  return runtime::active_planner().describe(request, named_limit, plan);
}

cudnnStatus_t report_at_boundary(const char* function, const Status& status) noexcept {
  if (status.ok()) return CUDNN_STATUS_SUCCESS;
  try {
    last_error = std::string(function) + ": " + status.message();
    UCUDNN_LOG_DEBUG(last_error);
  } catch (...) {
  }
  return runtime::to_cudnn_status(status);
}

cudnnStatus_t report_current_exception(const char* function) noexcept {
  try {
    try {
      throw;
    } catch (const std::bad_alloc&) {
      return report_at_boundary(function, Error(ErrorCode::kAllocFailed, "host memory exhausted"));
    } catch (const std::exception& e) {
      return report_at_boundary(function, Error(ErrorCode::kInternal, std::string("internal error: ") + e.what()));
    } catch (...) {
      return report_at_boundary(function, Error(ErrorCode::kInternal, "internal error"));
    }
  } catch (...) {  // no memory even for the message: the status alone
    return CUDNN_STATUS_ALLOC_FAILED;
  }
}

const char* last_error_message() { return last_error.c_str(); }

cudnnStatus_t report_failed_create(const char* function, cudnnStatus_t status) noexcept {
  static std::atomic<bool> reported{false};
  if (status == CUDNN_STATUS_SUCCESS || reported.exchange(true)) return status;
  try {
    // last_error is "<function>: <why>", set by at_boundary for this very call.
    std::string why = last_error;
    const std::string prefix = std::string(function) + ": ";
    if (why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
    UCUDNN_LOG_ERROR(function << " failed (" << cudnnGetErrorString(status) << "): " << why
                              << " (only the first failed handle creation of a process is logged)");
  } catch (...) {
  }
  return status;
}

}  // namespace ucudnn::api
