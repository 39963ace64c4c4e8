#include "api/frontend.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <new>
#include <string>

#include "core/env_config.h"
#include "core/internal_call.h"
#include "core/logging.h"
#include "core/statistics.h"
#include "runtime/engine.h"
#include "runtime/workspace_division.h"

namespace ucudnn {
namespace {

thread_local std::string last_error;

Status null_handle() { return Error(ErrorCode::kBadParam, "the UcudnnHandle_t is null"); }

std::size_t default_limit(const UcudnnContext* context) { return context->effective_limit(std::nullopt); }

// One warning per kind of failure and kernel; invalid arguments are the caller's to see in the
// status cuDNN returns, not a ucudnn problem worth a warning.
void warn_fallback(const ConvCall& call, const Status& status) {
  if (status.error().code == ErrorCode::kBadParam) return;
  warn_once(std::string(short_name(call.op)) + "|" + status.message(),
            std::string("planning a ") + short_name(call.op) +
                " convolution failed; running it as plain cuDNN would: " + status.message());
}

// What plain cuDNN would run within a workspace: the first heuristic answer that fits.
Status plain_choice(UcudnnContext* context, const ConvCall& call, std::size_t workspace_bytes, AlgoPerf* out) {
  std::vector<AlgoPerf> heuristics;
  UCUDNN_TRY(get_algorithms(context->cudnn, call.op, call.descriptors, &heuristics));
  for (const AlgoPerf& p : heuristics) {
    if (p.status == CUDNN_STATUS_SUCCESS && p.memory <= workspace_bytes) {
      *out = p;
      return Status::success();
    }
  }
  return Error(ErrorCode::kNotSupported, "no cuDNN algorithm fits " + std::to_string(workspace_bytes) +
                                                " bytes of workspace");
}

Status run_plain(UcudnnContext* context, const ConvCall& call, int algo, const void* alpha, const ConvBuffers& buffers,
                 void* workspace, std::size_t workspace_bytes, const void* beta) {
  if (algo == virtual_algo(call.op)) {
    AlgoPerf choice;
    UCUDNN_TRY(plain_choice(context, call, workspace_bytes, &choice));
    algo = choice.algo;
  }
  Statistics::instance().count_plain(call.op);
  return convolve(context->cudnn, call.op, call.descriptors, algo, alpha, buffers, workspace, workspace_bytes, beta);
}

bool stream_is_capturing(cudnnHandle_t handle) {
  cudaStream_t stream = nullptr;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudnnGetStream(handle, &stream) != CUDNN_STATUS_SUCCESS) return false;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return capture != cudaStreamCaptureStatusNone;
}

AlgoPerf plan_as_perf(const ExecutablePlan& plan) {
  AlgoPerf p;
  p.algo = virtual_algo(plan.key().op);
  p.status = CUDNN_STATUS_SUCCESS;
  p.time_ms = static_cast<float>(plan.wr().time_ms);
  p.memory = plan.wr().workspace_bytes;
  p.determinism = plan.deterministic() ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC;
  p.math_type = plan.wr().runs.empty() ? CUDNN_DEFAULT_MATH
                                       : static_cast<cudnnMathType_t>(plan.wr().runs.front().math_type);
  return p;
}

}  // namespace

int virtual_algo(ConvOp op) { return algo_count(op); }

Status create_context(UcudnnContext** out) {
  const auto& config = env_config();
  if (!config) {
    UCUDNN_LOG_ERROR(config.message());
    return config.error();
  }
  auto context = std::make_unique<UcudnnContext>();
  UCUDNN_CHECK_CUDA(cudaGetDevice(&context->device));
  UCUDNN_CHECK_CUDNN(cudnnCreate(&context->cudnn));
  // The WD budget is process-wide: the environment sets it once, ucudnnSetTotalWorkspaceSize after.
  static std::once_flag budget_from_environment;
  std::call_once(budget_from_environment, [&] {
    if (config->total_workspace > 0) WorkspaceDivision::instance().set_budget(config->total_workspace);
  });
  if (config->print_statistics) Statistics::instance().print_at_exit();
  context->policy = config->policy;
  context->default_workspace_limit = config->default_workspace_limit;
  context->imposed_limit = config->imposed_workspace_limit;
  *out = context.release();
  return Status::success();
}

Status destroy_context(UcudnnContext* context) {
  if (!context) return null_handle();
  std::unique_ptr<UcudnnContext> owned(context);
  UCUDNN_CHECK_CUDNN(cudnnDestroy(owned->cudnn));
  return Status::success();
}

Status choose_algorithms(UcudnnContext* context, const ConvCall& call, std::optional<std::size_t> limit,
                         int requested, std::vector<AlgoPerf>* results, const PlainQuery& plain) {
  if (!context) return null_handle();
  if (requested <= 0) return Error(ErrorCode::kBadParam, "requestedAlgoCount must be positive");
  Statistics::instance().count_query(call.op);
  results->clear();
  ConvKey key;
  Status status = read_conv_key(call.op, context->device, call.descriptors, &key);
  std::shared_ptr<const ExecutablePlan> plan;
  const std::size_t workspace_limit = context->effective_limit(limit);
  WorkspaceDivision& division = WorkspaceDivision::instance();
  if (status.ok() && division.enabled()) {
    // WD: register the kernel; the framework allocates nothing (the plan's segment is ucudnn's).
    AlgoPerf p;
    p.algo = virtual_algo(call.op);
    double predicted = 0;
    bool deterministic = false;
    status = division.register_kernel(context->cudnn, WdKey{key, context->layer_id.load()}, context->policy.load(),
                                      &predicted, &deterministic);
    if (status.ok()) {
      p.time_ms = static_cast<float>(predicted);
      p.memory = 0;
      p.determinism = deterministic ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC;
      results->push_back(p);
      context->remember_offer(key);
      return Status::success();
    }
  } else if (status.ok()) {
    context->remember_limit(key, workspace_limit);
    status = Engine::instance().plan(context->cudnn, key, workspace_limit, context->policy.load(), &plan);
  }
  if (!status.ok()) {
    warn_fallback(call, status);
    UCUDNN_TRY(plain(results));
    if (static_cast<int>(results->size()) > requested) results->resize(requested);
    return Status::success();
  }

  results->push_back(plan_as_perf(*plan));
  context->remember_offer(key);
  std::vector<AlgoPerf> singles;
  if (auto entry = Engine::instance().table().entry(key)) {
    for (const Measurement& m : entry->rows) {
      if (m.workspace_bytes > workspace_limit) continue;
      AlgoPerf p;
      p.algo = m.algo;
      p.time_ms = static_cast<float>(m.time_ms);
      p.memory = m.workspace_bytes;
      p.determinism = m.deterministic ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC;
      p.math_type = static_cast<cudnnMathType_t>(m.math_type);
      singles.push_back(p);
    }
  }
  std::stable_sort(singles.begin(), singles.end(),
                   [](const AlgoPerf& a, const AlgoPerf& b) { return a.time_ms < b.time_ms; });
  for (const AlgoPerf& p : singles) {
    if (static_cast<int>(results->size()) >= requested) break;
    results->push_back(p);
  }
  return Status::success();
}

Status query_workspace_size(UcudnnContext* context, const ConvCall& call, int algo, std::size_t* bytes) {
  if (!context) return null_handle();
  if (algo != virtual_algo(call.op)) return workspace_size(context->cudnn, call.op, call.descriptors, algo, bytes);
  if (WorkspaceDivision::instance().enabled()) {  // WD: the workspace is ucudnn's own
    *bytes = 0;
    return Status::success();
  }
  ConvKey key;
  Status status = read_conv_key(call.op, context->device, call.descriptors, &key);
  std::size_t limit = default_limit(context);
  if (status.ok()) {
    limit = context->requested_limit(key).value_or(limit);
    std::shared_ptr<const ExecutablePlan> plan;
    status = Engine::instance().plan(context->cudnn, key, limit, context->policy.load(), &plan);
    if (status.ok()) {
      *bytes = plan->wr().workspace_bytes;
      return Status::success();
    }
  }
  warn_fallback(call, status);
  AlgoPerf choice;
  UCUDNN_TRY(plain_choice(context, call, limit, &choice));
  *bytes = choice.memory;
  return Status::success();
}

Status run_convolution(UcudnnContext* context, const ConvCall& call, int algo, const void* alpha,
                       const ConvBuffers& buffers, void* workspace, std::size_t workspace_bytes, const void* beta) {
  if (!context) return null_handle();
  ConvKey key;
  Status status = read_conv_key(call.op, context->device, call.descriptors, &key);
  std::shared_ptr<const ExecutablePlan> plan;
  // Benchmarking synchronises and allocates, which would break a stream being captured into a
  // CUDA graph: while capturing, only plans that already exist are used.
  const bool capturing = stream_is_capturing(context->cudnn);
  if (status.ok() && algo != virtual_algo(call.op) && context->offered_plan(key)) {
    // Offered the plan, the caller chose a real algorithm (a framework keeping only deterministic
    // algorithms, say): its choice stands.
    return run_plain(context, call, algo, alpha, buffers, workspace, workspace_bytes, beta);
  }
  WorkspaceDivision& division = WorkspaceDivision::instance();
  if (status.ok() && division.enabled()) {
    status = division.run(context->cudnn, WdKey{key, context->layer_id.load()}, context->policy.load(), !capturing,
                          alpha, beta, buffers);
    if (status.ok()) return status;
    warn_fallback(call, status);
    return run_plain(context, call, algo, alpha, buffers, workspace, workspace_bytes, beta);
  }
  if (status.ok()) {
    Engine& engine = Engine::instance();
    const BatchSizePolicy policy = context->policy.load();
    auto plan_for = [&](std::size_t limit) -> Status {
      if (!capturing) return engine.plan(context->cudnn, key, limit, policy, &plan);
      if (engine.cached_plan(key, limit, policy, &plan)) return Status::success();
      return Error(ErrorCode::kNotSupported,
                    "cannot benchmark while the handle's stream is being captured into a CUDA graph");
    };
    // Run the plan the get/find call reported when the workspace given fits it; otherwise plan
    // for the workspace given (a convolution no get/find call has seen is planned here).
    if (auto requested = context->requested_limit(key)) {
      status = plan_for(*requested);
      if (status.ok() && plan->wr().workspace_bytes > workspace_bytes) plan.reset();
    }
    if (!plan) status = plan_for(context->effective_limit(workspace_bytes));
  }
  if (!status.ok()) {
    warn_fallback(call, status);
    return run_plain(context, call, algo, alpha, buffers, workspace, workspace_bytes, beta);
  }
  return plan->execute(context->cudnn, alpha, beta, buffers, workspace, workspace_bytes);
}

Status describe_plan(UcudnnContext* context, const ConvCall& call, std::optional<std::size_t> limit,
                     std::shared_ptr<const ExecutablePlan>* plan) {
  if (!context) return null_handle();
  ConvKey key;
  UCUDNN_TRY(read_conv_key(call.op, context->device, call.descriptors, &key));
  // In WD mode, once divided, the plan is the one the division chose (an explicit limit asks for WR).
  if (!limit && WorkspaceDivision::instance().enabled()) {
    if (auto divided = WorkspaceDivision::instance().plan_of(WdKey{key, context->layer_id.load()})) {
      *plan = divided;
      return Status::success();
    }
  }
  const std::size_t workspace_limit =
      limit ? *limit : context->requested_limit(key).value_or(default_limit(context));
  return Engine::instance().plan(context->cudnn, key, workspace_limit, context->policy.load(), plan);
}

cudnnStatus_t at_boundary(const char* function, const std::function<Status()>& body) noexcept {
  const InternalCallScope inside;  // ucudnn's own cuDNN calls are not intercepted again
  Status status;
  try {
    status = body();
  } catch (const std::bad_alloc&) {
    status = Error(ErrorCode::kAllocFailed, "host memory exhausted");
  } catch (const std::exception& e) {
    status = Error(ErrorCode::kInternal, std::string("internal error: ") + e.what());
  } catch (...) {
    status = Error(ErrorCode::kInternal, "internal error");
  }
  if (!status.ok()) {
    try {
      last_error = std::string(function) + ": " + status.message();
      UCUDNN_LOG_DEBUG(last_error);
    } catch (...) {
    }
  }
  return to_cudnn_status(status);
}

const char* last_error_message() { return last_error.c_str(); }

}  // namespace ucudnn
