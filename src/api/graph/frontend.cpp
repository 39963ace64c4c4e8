#include "api/graph/frontend.h"

#include <algorithm>
#include <mutex>
#include <set>
#include <string>

#include "api/frontend.h"
#include "api/graph/conv_key.h"
#include "api/graph/offer.h"
#include "api/graph/planning.h"
#include "api/plain_fallback.h"
#include "core/env_config.h"
#include "core/internal_call.h"
#include "core/logging.h"
#include "core/statistics.h"
#include "runtime/backend_graph.h"

namespace ucudnn::api {
using ucudnn::runtime::read_plan_identity;
using ucudnn::runtime::read_plan_numerical_notes;
using ucudnn::runtime::read_plan_workspace;

namespace {

// The program's call, reported as a boundary call would be if anything below throws. The settings
// are read first (once per process), so that the logger has its level and file before this logs.
template <typename Body>
cudnnStatus_t guarded(const char* function, Body&& body) noexcept {
  try {
    (void)env_config();
    return body();
  } catch (...) {
    return report_current_exception(function);
  }
}

bool uses_tensor_cores(const std::set<int>& notes) {
  return notes.count(CUDNN_NUMERICAL_NOTE_TENSOR_CORE) || notes.count(CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS);
}

}  // namespace

cudnnStatus_t GraphFrontEnd::create(Create real, cudnnBackendDescriptorType_t type,
                                    cudnnBackendDescriptor_t* descriptor) noexcept {
  const cudnnStatus_t status = real(type, descriptor);
  if (status != CUDNN_STATUS_SUCCESS || in_internal_call() || !graph_records_track(type)) return status;
  return guarded("cudnnBackendCreateDescriptor", [&] {
    records_.on_create(type, *descriptor);
    return status;
  });
}

void GraphFrontEnd::forget(cudnnBackendDescriptor_t descriptor) {
  records_.on_destroy(descriptor);
  std::unique_lock<std::shared_mutex> lock(mutex_);
  plans_.erase(descriptor);
}

cudnnStatus_t GraphFrontEnd::destroy(Destroy real, cudnnBackendDescriptor_t descriptor) noexcept {
  if (!in_internal_call()) {
    // Forgotten first: once cuDNN frees it, the address may be handed out again.
    const cudnnStatus_t status = guarded("cudnnBackendDestroyDescriptor", [&] {
      forget(descriptor);
      return CUDNN_STATUS_SUCCESS;
    });
    if (status != CUDNN_STATUS_SUCCESS) return status;
  }
  return real(descriptor);
}

cudnnStatus_t GraphFrontEnd::initialize(Finalize real, cudnnBackendDescriptor_t descriptor) noexcept {
  const cudnnStatus_t status = real(descriptor);
  if (status != CUDNN_STATUS_SUCCESS || in_internal_call()) return status;
  return guarded("cudnnBackendInitialize", [&] {
    records_.on_reset(descriptor);
    std::unique_lock<std::shared_mutex> lock(mutex_);
    plans_.erase(descriptor);
    return status;
  });
}

cudnnStatus_t GraphFrontEnd::set(Set real, cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                                 cudnnBackendAttributeType_t type, int64_t count, const void* values) noexcept {
  const cudnnStatus_t status = real(descriptor, name, type, count, values);
  if (status != CUDNN_STATUS_SUCCESS || in_internal_call()) return status;
  return guarded("cudnnBackendSetAttribute", [&] {
    records_.on_set(descriptor, name, type, count, values);
    return status;
  });
}

cudnnStatus_t GraphFrontEnd::finalize(Finalize real, cudnnBackendDescriptor_t descriptor) noexcept {
  const cudnnStatus_t status = real(descriptor);
  if (status != CUDNN_STATUS_SUCCESS || in_internal_call()) return status;
  return guarded("cudnnBackendFinalize", [&] {
    records_.on_finalize(descriptor);
    return take_over(descriptor) ? status : CUDNN_STATUS_NOT_SUPPORTED;
  });
}

bool GraphFrontEnd::take_over(cudnnBackendDescriptor_t descriptor) {
  const std::optional<GraphPlanFacts> facts = records_.plan(descriptor);
  if (!facts) return true;  // not a plan
  const InternalCallScope inside;  // the reads below are ucudnn's own backend calls
  auto pass = [](const std::string& why) {
    Statistics::instance().count_graph_plan(false);
    UCUDNN_LOG_DEBUG("graph API: an execution plan left to cuDNN: " << why);
    return true;
  };
  if (!facts->convolution) return pass("its graph is not one convolution ucudnn follows");
  const ContextLease context = lookup_(facts->handle);
  if (!context) return pass("its handle is not one of ucudnn's (or it has none)");
  const GraphConvolution& conv = *facts->convolution;
  std::set<int> notes;
  const Status read = read_plan_numerical_notes(descriptor, &notes);
  if (!read.ok()) return pass(read.message());
  auto plan = std::make_shared<Plan>();
  const Status keyed =
      graph_conv_key(conv, context->device, graph_math_type(conv.x.data_type, uses_tensor_cores(notes)), &plan->key);
  if (!keyed.ok()) return pass(keyed.message());
  const Status sized = read_plan_workspace(descriptor, &plan->cudnn_workspace);
  if (!sized.ok()) return pass(sized.message());
  plan->alpha = conv.alpha;
  plan->beta = conv.beta;
  plan->uid_x = conv.x.uid;
  plan->uid_w = conv.w.uid;
  plan->uid_y = conv.y.uid;
  plan->handle = facts->handle;
  plan->offer = facts->offer;
  if (plan->offer >= 0) {
    // An offer whose size cuDNN's first configuration (the plan it copies) fits would only repeat it.
    GraphPlanLimits limit;
    if (!graph_plan_limits(context.get(), &limit).ok() || limit.fixed ||
        plan->cudnn_workspace <= offer_workspace_limit(limit.reachable, plan->offer)) {
      return false;
    }
  }
  {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    plans_[descriptor] = std::move(plan);
  }
  Statistics::instance().count_graph_plan(true);
  return true;
}

std::shared_ptr<GraphFrontEnd::Plan> GraphFrontEnd::find(cudnnBackendDescriptor_t plan) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  auto it = plans_.find(plan);
  return it == plans_.end() ? nullptr : it->second;
}

std::optional<std::size_t> GraphFrontEnd::stand_in_limit(const Plan& plan, cudnnBackendDescriptor_t descriptor,
                                                         std::size_t limit) {
  std::string identity;
  const Status read = read_plan_identity(descriptor, &identity);
  if (!read.ok()) UCUDNN_LOG_DEBUG("graph API: a plan's engine configuration unread (" << read.message() << ")");
  return stand_ins_.stands_in(plan.key, read.ok() ? std::optional<std::string>(std::move(identity)) : std::nullopt,
                              limit);
}

GraphFrontEnd::PlanState GraphFrontEnd::decide(Plan& plan, cudnnBackendDescriptor_t descriptor) {
  PlanState state = plan.state.load(std::memory_order_acquire);
  if (state != PlanState::kUndecided) return state;
  const std::lock_guard<std::mutex> one_decision(plan.deciding);
  state = plan.state.load(std::memory_order_acquire);
  if (state != PlanState::kUndecided) return state;  // decided (or run as cuDNN's) while this waited
  const ContextLease context = lookup_(plan.handle);
  GraphPlanLimits limit;
  std::size_t bytes = 0;
  bool stand_in = true;
  Status outcome;  // the failure's kind, for the warning
  const auto plan_it = [&]() -> Status {
    if (!context) return Error(ErrorCode::kBadParam, "the plan's handle was destroyed");
    UCUDNN_TRY(graph_plan_limits(context.get(), &limit));
    if (plan.offer >= 0 && !limit.fixed) {
      // An offer is ucudnn's within its size of what the program may reach (where cuDNN's first
      // configuration, which it copies, fits that, it repeats it: kept).
      limit.keep_within = limit.plan_under = offer_workspace_limit(limit.reachable, plan.offer);
      if (plan.cudnn_workspace <= limit.keep_within) return Status::success();
      return graph_workspace(context.get(), plan.handle, plan.key, limit.plan_under, &bytes);
    }
    // The program's choice comes first: where its plan fits, it runs as the program built it
    // (the framework's autotuner chose it among real engines, in its real memory).
    if (plan.cudnn_workspace <= limit.keep_within) return Status::success();
    if (!limit.fixed) {
      const std::optional<std::size_t> under = stand_in_limit(plan, descriptor, limit.plan_under);
      stand_in = under.has_value();
      if (!stand_in) return Status::success();
      limit.plan_under = *under;
    }
    return graph_workspace(context.get(), plan.handle, plan.key, limit.plan_under, &bytes);
  };
  const cudnnStatus_t planned = at_boundary("graph API planning", [&] { return outcome = plan_it(); });
  if (planned == CUDNN_STATUS_SUCCESS && plan.cudnn_workspace <= limit.keep_within) {
    state = PlanState::kKept;
  } else if (planned == CUDNN_STATUS_SUCCESS && !stand_in) {
    UCUDNN_LOG_DEBUG("graph API: a plan that does not fit stays cuDNN's: the kernel has its stand-in already");
    state = PlanState::kCudnn;
  } else if (planned == CUDNN_STATUS_SUCCESS) {
    plan.limit = limit.plan_under;
    plan.workspace = bytes;
    state = PlanState::kUcudnn;
    if (plan.offer >= 0) Statistics::instance().count_graph_offer_planned();
  } else {
    // An exception leaves `outcome` a success: the boundary's status and message say what it was.
    const Error failure = !outcome.ok()                          ? outcome.error()
                          : planned == CUDNN_STATUS_ALLOC_FAILED ? Error::out_of_memory(last_error_message())
                                                                 : Error::internal(last_error_message());
    warn_once("graph|" + plan.key.to_string(),
              fallback_warning(std::string("planning a graph-API ") + short_name(plan.key.op) + " convolution", failure,
                               "cuDNN's own plan runs it"));
    state = PlanState::kCudnn;
  }
  PlanState expected = PlanState::kUndecided;
  if (plan.state.compare_exchange_strong(expected, state, std::memory_order_acq_rel)) {
    if (state == PlanState::kKept) Statistics::instance().count_graph_plan_kept();
    return state;
  }
  return expected;  // it ran as cuDNN's before this decided
}

GraphFrontEnd::PlanState GraphFrontEnd::settled_before_use(Plan& plan) {
  PlanState expected = PlanState::kUndecided;
  if (plan.state.compare_exchange_strong(expected, PlanState::kCudnn, std::memory_order_acq_rel)) {
    UCUDNN_LOG_DEBUG("graph API: a plan run before its workspace was asked for stays cuDNN's");
    return PlanState::kCudnn;
  }
  return expected;
}

std::optional<std::size_t> GraphFrontEnd::offers(cudnnBackendDescriptor_t heuristics) const {
  const auto conv = records_.convolution_of(heuristics);
  if (!conv) return std::nullopt;
  const ContextLease context = lookup_(conv->handle);
  if (!context || context->settings.micro_batch_offers == OfferMode::kOff || context->settings.forced_workspace_limit ||
      context->settings.memory_budget.kind == MemoryBudget::Kind::kOff) {
    return std::nullopt;
  }
  // Asked at each heuristics query (rare, and slower in cuDNN): a framework loaded later counts.
  if (context->settings.micro_batch_offers == OfferMode::kAuto && !program_takes_offers(loaded_object_names())) {
    return std::nullopt;
  }
  GraphPlanLimits limit;
  if (!graph_plan_limits(context.get(), &limit).ok() || limit.fixed) return std::nullopt;
  return limit.reachable;
}

int GraphFrontEnd::offers_wanted_for(cudnnBackendDescriptor_t heuristics, std::size_t reachable) const {
  const InternalCallScope inside;  // ucudnn's own backend calls
  std::size_t first_workspace = 0;
  const Status read = runtime::read_first_configuration_workspace(heuristics, &first_workspace);
  if (!read.ok()) {
    UCUDNN_LOG_DEBUG("graph API: cuDNN's first configuration's workspace unread (" << read.message()
                                                                                    << "): every offer made");
    return kOffers;
  }
  return offers_wanted(reachable, first_workspace);
}

cudnnStatus_t GraphFrontEnd::get(Get real, cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                                 cudnnBackendAttributeType_t type, int64_t requested, int64_t* count,
                                 void* values) noexcept {
  if (name == CUDNN_ATTR_ENGINEHEUR_RESULTS && type == CUDNN_TYPE_BACKEND_DESCRIPTOR && !in_internal_call()) {
    int wanted = 0;
    const cudnnStatus_t asked = guarded("cudnnBackendGetAttribute", [&] {
      // Asked again at the query that fills the results: the memory may have moved since the count,
      // and answering fewer than the count promised is allowed (the program reads the count back).
      if (const std::optional<std::size_t> reachable = offers(descriptor)) {
        wanted = offers_wanted_for(descriptor, *reachable);
      }
      return CUDNN_STATUS_SUCCESS;
    });
    if (asked != CUDNN_STATUS_SUCCESS) return asked;
    if (wanted > 0) {
      cudnnBackendDescriptor_t offered[kOffers] = {};
      const cudnnStatus_t status = get_results_with_offers(real, descriptor, requested, count, values, wanted, offered);
      if (status != CUDNN_STATUS_SUCCESS || !count || !values || requested <= 0) return status;
      return guarded("cudnnBackendGetAttribute", [&] {
        records_.on_get_descriptors(descriptor, name, std::min(*count, requested), values);
        for (int i = 0; i < kOffers; ++i) {
          if (!offered[i]) continue;
          records_.mark_offer(offered[i], i);
          Statistics::instance().count_graph_offer();
        }
        return status;
      });
    }
  }
  const cudnnStatus_t status = real(descriptor, name, type, requested, count, values);
  if (status != CUDNN_STATUS_SUCCESS || in_internal_call()) return status;
  return guarded("cudnnBackendGetAttribute", [&] {
    if (name == CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE && type == CUDNN_TYPE_INT64 && requested >= 1 && values) {
      if (const auto plan = find(descriptor)) {
        if (decide(*plan, descriptor) == PlanState::kUcudnn) {
          *static_cast<int64_t*>(values) = static_cast<int64_t>(plan->workspace);
        }
      }
    } else if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR && count && values) {
      records_.on_get_descriptors(descriptor, name, std::min(*count, requested), values);
    }
    return status;
  });
}

cudnnStatus_t GraphFrontEnd::execute(Execute real, cudnnHandle_t handle, cudnnBackendDescriptor_t descriptor,
                                     cudnnBackendDescriptor_t variant_pack) noexcept {
  if (in_internal_call()) return real(handle, descriptor, variant_pack);
  std::shared_ptr<Plan> plan;
  const cudnnStatus_t found = guarded("cudnnBackendExecute", [&] {
    plan = find(descriptor);
    return CUDNN_STATUS_SUCCESS;
  });
  if (found != CUDNN_STATUS_SUCCESS) return found;
  const PlanState state = plan ? settled_before_use(*plan) : PlanState::kCudnn;
  if (state == PlanState::kKept) Statistics::instance().count_graph_execution();
  if (state != PlanState::kUcudnn) return real(handle, descriptor, variant_pack);
  const std::size_t workspace_bytes = plan->workspace;
  bool fall_back = false;
  const cudnnStatus_t status = at_boundary("cudnnBackendExecute", [&]() -> Status {
    const std::int64_t uids[3] = {plan->uid_x, plan->uid_w, plan->uid_y};
    void* pointers[3] = {};
    void* workspace = nullptr;
    if (!records_.pack_pointers(variant_pack, uids, pointers, &workspace)) {
      return Error(ErrorCode::kNotSupported,
                   "the variant pack is not a finalized pack of the convolution's tensors (or overrides shapes)");
    }
    if (!pointers[0] || !pointers[1] || !pointers[2]) {
      return Error(ErrorCode::kBadParam, "the variant pack lacks a pointer for one of the convolution's tensors");
    }
    ContextLease context = lookup_(handle);
    if (!context) context = lookup_(plan->handle);
    if (!context) return Error(ErrorCode::kBadParam, "neither the call's handle nor the plan's is ucudnn's");
    Statistics::instance().count_graph_execution();
    const Status ran = run_graph_convolution(context.get(), handle, plan->key, plan->limit, plan->alpha, plan->beta,
                                             {pointers[0], pointers[1], pointers[2]}, workspace, workspace_bytes);
    if (!ran.ok() && ran.error().code != ErrorCode::kBadParam && plan->cudnn_workspace <= workspace_bytes) {
      warn_once("graph-run|" + ran.message(),
                fallback_warning("a graph-API convolution in ucudnn", ran.error(), "cuDNN's own plan runs it"));
      fall_back = true;
      return Status::success();
    }
    return ran;
  });
  if (fall_back) return real(handle, descriptor, variant_pack);
  return status;
}

cudnnStatus_t GraphFrontEnd::populate_graph(const char* function, PopulateGraph real, cudnnHandle_t handle,
                                            cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t variant_pack,
                                            cudaGraph_t graph) noexcept {
  if (!in_internal_call()) {
    bool refused = false;
    const cudnnStatus_t status = guarded(function, [&] {
      const auto found = find(plan);
      refused = found && settled_before_use(*found) == PlanState::kUcudnn;
      return CUDNN_STATUS_SUCCESS;
    });
    if (status != CUDNN_STATUS_SUCCESS) return status;
    if (refused) {
      return report_at_boundary(function, Error(ErrorCode::kNotSupported,
                                                "ucudnn runs this plan: capture cudnnBackendExecute on a stream "
                                                "instead of populating a CUDA graph from the plan"));
    }
  }
  return real(handle, plan, variant_pack, graph);
}

}  // namespace ucudnn::api
