#include "runtime/backend_graph.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "core/engine_config.h"
#include "core/logging.h"
#include "runtime/backend_attributes.h"
#include "runtime/backend_calls.h"
#include "runtime/descriptors.h"
#include "runtime/scaling_factors.h"

namespace ucudnn::runtime {

namespace backend {

Status create(cudnnBackendDescriptorType_t type, BackendDescriptor* out) {
  cudnnBackendDescriptor_t raw = nullptr;
  UCUDNN_CHECK_CUDNN(cudnnBackendCreateDescriptor(type, &raw));
  out->reset(raw);
  return Status::success();
}

Status set_descriptor(const BackendDescriptor& d, cudnnBackendAttributeName_t name, const BackendDescriptor& value) {
  cudnnBackendDescriptor_t raw = value.get();
  return set(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, &raw, 1);
}

Status finalize(const BackendDescriptor& d) {
  UCUDNN_CHECK_CUDNN(cudnnBackendFinalize(d.get()));
  return Status::success();
}

// A handle of ucudnn's own per device for building graphs and plans: plans are cached for the
// process and must not refer to a caller's handle that may be destroyed. Never destroyed.
Status planning_handle(cudnnHandle_t* out) {
  static std::mutex mutex;
  static auto* by_device = new std::map<int, cudnnHandle_t>();
  int device = 0;
  UCUDNN_CHECK_CUDA(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  cudnnHandle_t& handle = (*by_device)[device];
  if (!handle) UCUDNN_CHECK_CUDNN(cudnnCreate(&handle));
  *out = handle;
  return Status::success();
}

Status referenced(cudnnBackendDescriptor_t owner, cudnnBackendAttributeName_t name, cudnnBackendDescriptorType_t type,
                  BackendDescriptor* out) {
  UCUDNN_TRY(create(type, out));
  cudnnBackendDescriptor_t raw = out->get();
  std::int64_t count = 0;
  UCUDNN_CHECK_CUDNN(cudnnBackendGetAttribute(owner, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &raw));
  return Status::success();
}

}  // namespace backend

namespace {

// Unique ids of the three tensors in every graph and variant pack.
constexpr std::int64_t kUidX = 'x', kUidW = 'w', kUidY = 'y';

std::vector<std::int64_t> widen(const std::vector<int>& v) { return std::vector<std::int64_t>(v.begin(), v.end()); }

Status make_tensor(std::int64_t uid, int data_type, const std::vector<std::int64_t>& dims,
                   const std::vector<std::int64_t>& strides, BackendDescriptor* out) {
  UCUDNN_TRY(create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, out));
  const auto type = static_cast<cudnnDataType_t>(data_type);
  const std::int64_t alignment = kEngineAlignment;
  UCUDNN_TRY(set(*out, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &type, 1));
  UCUDNN_TRY(set(*out, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims.data(), static_cast<std::int64_t>(dims.size())));
  UCUDNN_TRY(set(*out, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides.data(), static_cast<std::int64_t>(strides.size())));
  UCUDNN_TRY(set(*out, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid, 1));
  UCUDNN_TRY(set(*out, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &alignment, 1));
  return finalize(*out);
}

// A legacy filter descriptor has dims and a format, no strides: NCHW is packed K, C, spatial;
// NHWC keeps C innermost, then the spatial dims in order.
std::vector<std::int64_t> filter_strides(const FilterLayout& w) {
  const std::size_t rank = w.dims.size();
  std::vector<std::int64_t> strides(rank);
  if (w.format == CUDNN_TENSOR_NHWC) {
    std::int64_t stride = w.dims[1];
    strides[1] = 1;
    for (std::size_t i = rank - 1; i >= 2; --i) {
      strides[i] = stride;
      stride *= w.dims[i];
    }
    strides[0] = stride;
  } else {
    std::int64_t stride = 1;
    for (std::size_t i = rank; i-- > 0;) {
      strides[i] = stride;
      stride *= w.dims[i];
    }
  }
  return strides;
}

Status make_convolution(const ConvParams& conv, BackendDescriptor* out) {
  UCUDNN_TRY(create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, out));
  const auto compute = static_cast<cudnnDataType_t>(conv.compute_type);
  const auto mode = static_cast<cudnnConvolutionMode_t>(conv.mode);
  const std::int64_t spatial = static_cast<std::int64_t>(conv.pads.size());
  const auto pads = widen(conv.pads), strides = widen(conv.strides), dilations = widen(conv.dilations);
  UCUDNN_TRY(set(*out, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute, 1));
  UCUDNN_TRY(set(*out, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, &mode, 1));
  UCUDNN_TRY(set(*out, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, &spatial, 1));
  UCUDNN_TRY(set(*out, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, dilations.data(), spatial));
  UCUDNN_TRY(set(*out, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, strides.data(), spatial));
  UCUDNN_TRY(set(*out, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, pads.data(), spatial));
  UCUDNN_TRY(set(*out, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, pads.data(), spatial));
  return finalize(*out);
}

}  // namespace

namespace backend {

// The one-operation graph of `key` with the given scaling factors; `keep` receives every
// descriptor the graph refers to.
Status make_graph(const ConvKey& key, double alpha, double beta, cudnnHandle_t handle, BackendDescriptor* graph,
                  std::vector<BackendDescriptor>* keep) {
  BackendDescriptor x, w, y, conv, op;
  UCUDNN_TRY(make_tensor(kUidX, key.x.data_type, widen(key.x.dims), widen(key.x.strides), &x));
  UCUDNN_TRY(make_tensor(kUidW, key.w.data_type, widen(key.w.dims), filter_strides(key.w), &w));
  UCUDNN_TRY(make_tensor(kUidY, key.y.data_type, widen(key.y.dims), widen(key.y.strides), &y));
  UCUDNN_TRY(make_convolution(key.conv, &conv));

  const ConvolutionOperationAttributes& n = convolution_operation(key.op);
  UCUDNN_TRY(create(n.type, &op));
  UCUDNN_TRY(set_descriptor(op, n.x, x));
  UCUDNN_TRY(set_descriptor(op, n.w, w));
  UCUDNN_TRY(set_descriptor(op, n.y, y));
  UCUDNN_TRY(set_descriptor(op, n.conv, conv));
  const ScalingFactor a(key, alpha), b(key, beta);
  UCUDNN_TRY(set(op, n.alpha, a.attribute_type(), a.get(), 1));
  UCUDNN_TRY(set(op, n.beta, b.attribute_type(), b.get(), 1));
  UCUDNN_TRY(finalize(op));

  UCUDNN_TRY(create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, graph));
  cudnnBackendDescriptor_t ops = op.get();
  UCUDNN_TRY(set(*graph, kOperationGraphHandle, CUDNN_TYPE_HANDLE, &handle, 1));
  UCUDNN_TRY(set(*graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, &ops, 1));
  UCUDNN_TRY(finalize(*graph));
  for (BackendDescriptor* d : {&x, &w, &y, &conv, &op}) keep->push_back(std::move(*d));
  return Status::success();
}

Status make_engine(const BackendDescriptor& graph, std::int64_t engine, BackendDescriptor* out) {
  UCUDNN_TRY(create(CUDNN_BACKEND_ENGINE_DESCRIPTOR, out));
  UCUDNN_TRY(set_descriptor(*out, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, graph));
  UCUDNN_TRY(set(*out, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, &engine, 1));
  return finalize(*out);
}

}  // namespace backend

Status read_plan_numerical_notes(cudnnBackendDescriptor_t plan, std::set<int>* notes) {
  BackendDescriptor config, engine;
  UCUDNN_TRY(referenced(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &config));
  UCUDNN_TRY(referenced(config.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_BACKEND_ENGINE_DESCRIPTOR, &engine));
  return read_notes<cudnnBackendNumericalNote_t>(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                                 notes);
}

Status read_plan_workspace(cudnnBackendDescriptor_t plan, std::size_t* bytes) {
  std::int64_t workspace = 0;
  UCUDNN_TRY(read_value(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, &workspace));
  *bytes = static_cast<std::size_t>(workspace);
  return Status::success();
}

Status read_first_configuration_workspace(cudnnBackendDescriptor_t heuristics, std::size_t* bytes) {
  BackendDescriptor config;
  UCUDNN_TRY(create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &config));
  cudnnBackendDescriptor_t raw = config.get();
  std::int64_t count = 0;
  UCUDNN_CHECK_CUDNN(cudnnBackendGetAttribute(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &raw));
  if (count != 1) return Error(ErrorCode::kNotSupported, "the engine heuristics have no result");
  std::int64_t workspace = 0;
  UCUDNN_TRY(read_value(raw, CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, CUDNN_TYPE_INT64, &workspace));
  if (workspace < 0) return Error(ErrorCode::kInternal, "cuDNN gave a negative workspace");
  *bytes = static_cast<std::size_t>(workspace);
  return Status::success();
}

Status read_plan_identity(cudnnBackendDescriptor_t plan, std::string* identity) {
  std::int64_t size = 0;
  UCUDNN_CHECK_CUDNN(
      cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 0, &size, nullptr));
  if (size <= 0 || size > (std::int64_t{16} << 20)) {
    return Error(ErrorCode::kInternal, "cuDNN gave a plan serialization of " + std::to_string(size) + " bytes");
  }
  std::vector<char> text(static_cast<std::size_t>(size));
  UCUDNN_CHECK_CUDNN(cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR,
                                              size, &size, text.data()));
  identity->assign(text.data(), std::min(text.size(), static_cast<std::size_t>(std::max<std::int64_t>(size, 0))));
  return Status::success();
}

CudnnExecutionPlan::~CudnnExecutionPlan() {
  // The plan before the descriptors it was made from.
  plan_.reset();
  while (!keep_alive_.empty()) keep_alive_.pop_back();
}

Status CudnnExecutionPlan::build(const ConvKey& key, const std::string& id, double alpha, double beta,
                         std::unique_ptr<CudnnExecutionPlan>* out) {
  if (!engines_supported(key)) {
    return Error(ErrorCode::kNotSupported, "the graph API cannot express " + key.to_string());
  }
  UCUDNN_TRY_ASSIGN(const EngineConfigId config_id, parse_engine_config(id));
  cudnnHandle_t handle = nullptr;
  UCUDNN_TRY(planning_handle(&handle));
  std::unique_ptr<CudnnExecutionPlan> plan(new CudnnExecutionPlan());
  BackendDescriptor graph;
  UCUDNN_TRY(make_graph(key, alpha, beta, handle, &graph, &plan->keep_alive_));

  BackendDescriptor engine, config;
  UCUDNN_TRY(make_engine(graph, config_id.engine, &engine));
  std::vector<BackendDescriptor> choices(config_id.knobs.size());
  std::vector<cudnnBackendDescriptor_t> raw_choices;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    const auto type = static_cast<cudnnBackendKnobType_t>(config_id.knobs[i].first);
    const std::int64_t value = config_id.knobs[i].second;
    UCUDNN_TRY(create(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, &choices[i]));
    UCUDNN_TRY(set(choices[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, &type, 1));
    UCUDNN_TRY(set(choices[i], CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, &value, 1));
    UCUDNN_TRY(finalize(choices[i]));
    raw_choices.push_back(choices[i].get());
  }
  UCUDNN_TRY(create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &config));
  UCUDNN_TRY(set_descriptor(config, CUDNN_ATTR_ENGINECFG_ENGINE, engine));
  if (!raw_choices.empty()) {
    UCUDNN_TRY(set(config, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, CUDNN_TYPE_BACKEND_DESCRIPTOR, raw_choices.data(),
                   static_cast<std::int64_t>(raw_choices.size())));
  }
  UCUDNN_TRY(finalize(config));

  UCUDNN_TRY(create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan->plan_));
  UCUDNN_TRY(set(plan->plan_, kExecutionPlanHandle, CUDNN_TYPE_HANDLE, &handle, 1));
  UCUDNN_TRY(set_descriptor(plan->plan_, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config));
  const Status finalized = finalize(plan->plan_);
  if (!finalized.ok()) {
    return Error(ErrorCode::kNotSupported, "engine configuration " + id + " does not apply: " + finalized.message());
  }
  UCUDNN_TRY(read_plan_workspace(plan->plan_.get(), &plan->workspace_bytes_));
  plan->keep_alive_.push_back(std::move(graph));
  plan->keep_alive_.push_back(std::move(engine));
  for (auto& c : choices) plan->keep_alive_.push_back(std::move(c));
  plan->keep_alive_.push_back(std::move(config));
  *out = std::move(plan);
  return Status::success();
}

Status CudnnExecutionPlan::execute(cudnnHandle_t handle, const ConvBuffers& buffers, void* workspace,
                           std::size_t workspace_size) const {
  if (workspace_size < workspace_bytes_) {
    return Error(ErrorCode::kNotSupported, "an engine plan needs " + std::to_string(workspace_bytes_) +
                                               " bytes of workspace, " + std::to_string(workspace_size) + " given");
  }
  if (!engine_aligned(buffers.x) || !engine_aligned(buffers.w) || !engine_aligned(buffers.y) ||
      (workspace_bytes_ > 0 && !engine_aligned(workspace))) {
    return Error(ErrorCode::kNotSupported, "an engine plan needs 16-byte aligned pointers");
  }
  BackendDescriptor pack;
  UCUDNN_TRY(create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &pack));
  const std::int64_t uids[3] = {kUidX, kUidW, kUidY};
  void* pointers[3] = {buffers.x, buffers.w, buffers.y};
  UCUDNN_TRY(set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids, 3));
  UCUDNN_TRY(set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, pointers, 3));
  UCUDNN_TRY(set(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, &workspace, 1));
  UCUDNN_TRY(finalize(pack));
  UCUDNN_CHECK_CUDNN(cudnnBackendExecute(handle, plan_.get(), pack.get()));
  return Status::success();
}

}  // namespace ucudnn::runtime
