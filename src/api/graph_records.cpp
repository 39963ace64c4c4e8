#include "api/graph_records.h"

#include <mutex>

namespace ucudnn::api {
namespace {

// A variant pack's contents, as the program set them.
struct VariantPack {
  std::vector<std::int64_t> uids;
  std::vector<void*> pointers;
  void* workspace = nullptr;
  bool overrides = false;  ///< dynamic-shape overrides or intermediates: not a plain call
};

}  // namespace

struct GraphRecords::Record {
  cudnnBackendDescriptorType_t type;
  bool finalized = false;
  bool unsupported = false;  ///< set with something this file does not understand

  // Tensors.
  GraphTensor tensor;
  bool is_virtual = false, by_value = false, vectorized = false, reordered = false, ragged = false;

  // Convolution descriptors.
  int compute_type = -1, mode = CUDNN_CROSS_CORRELATION;
  std::int64_t spatial_dims = -1;
  std::vector<std::int64_t> pre_pads, post_pads, strides, dilations;

  // Convolution operations: what they refer to, until finalize freezes it.
  cudnnBackendDescriptor_t x = nullptr, w = nullptr, y = nullptr, conv = nullptr;
  double alpha = 1.0, beta = 0.0;

  // Operation graphs.
  std::vector<cudnnBackendDescriptor_t> ops;
  cudnnHandle_t handle = nullptr;  ///< graphs and plans

  // Engines, heuristics, configurations and plans: the descriptor they were made from.
  cudnnBackendDescriptor_t source = nullptr;
  int offer = -1;  ///< which micro-batch offer this is, or a plan is made from (-1: none)

  // Once finalized (or copied out of a finalized one): the convolution of the chain, frozen.
  std::shared_ptr<const GraphConvolution> convolution;

  // Variant packs.
  VariantPack pack;
};

namespace {

bool is_operation(cudnnBackendDescriptorType_t type) {
  return type == CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR ||
         type == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR ||
         type == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR;
}

ConvOp op_of(cudnnBackendDescriptorType_t type) {
  if (type == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR) return ConvOp::kBackwardData;
  if (type == CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR) return ConvOp::kBackwardFilter;
  return ConvOp::kForward;
}

// Reads `count` values of the attribute's type; false where the type is not the one expected.
bool read_int64s(cudnnBackendAttributeType_t type, std::int64_t count, const void* values,
                 std::vector<std::int64_t>* out) {
  if (type != CUDNN_TYPE_INT64 || count < 0 || (count > 0 && !values)) return false;
  const auto* v = static_cast<const std::int64_t*>(values);
  out->assign(v, v + count);
  return true;
}

bool read_int64(cudnnBackendAttributeType_t type, std::int64_t count, const void* values, std::int64_t* out) {
  if (type != CUDNN_TYPE_INT64 || count != 1 || !values) return false;
  *out = *static_cast<const std::int64_t*>(values);
  return true;
}

// Enumerations are int-sized in cuDNN's C API.
bool read_enum(cudnnBackendAttributeType_t type, cudnnBackendAttributeType_t expected, std::int64_t count,
               const void* values, int* out) {
  if (type != expected || count != 1 || !values) return false;
  *out = *static_cast<const int*>(values);
  return true;
}

bool read_bool(cudnnBackendAttributeType_t type, std::int64_t count, const void* values, bool* out) {
  if (type != CUDNN_TYPE_BOOLEAN || count != 1 || !values) return false;
  *out = *static_cast<const bool*>(values);
  return true;
}

bool read_scalar(cudnnBackendAttributeType_t type, std::int64_t count, const void* values, double* out) {
  if (count != 1 || !values) return false;
  if (type == CUDNN_TYPE_FLOAT) *out = *static_cast<const float*>(values);
  else if (type == CUDNN_TYPE_DOUBLE) *out = *static_cast<const double*>(values);
  else return false;
  return true;
}

bool read_descriptor(cudnnBackendAttributeType_t type, std::int64_t count, const void* values,
                     cudnnBackendDescriptor_t* out) {
  if (type != CUDNN_TYPE_BACKEND_DESCRIPTOR || count != 1 || !values) return false;
  *out = *static_cast<const cudnnBackendDescriptor_t*>(values);
  return true;
}

// Tensors: false for an attribute that changes what the tensor means in ways ucudnn does not
// model (the attribute is then unsupported and the graph passes through).
bool set_tensor(GraphRecords::Record& r, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                std::int64_t count, const void* values) {
  switch (name) {
    case CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT: return true;  // ucudnn checks alignment per call
    case CUDNN_ATTR_TENSOR_DATA_TYPE:
      return read_enum(type, CUDNN_TYPE_DATA_TYPE, count, values, &r.tensor.data_type);
    case CUDNN_ATTR_TENSOR_DIMENSIONS: return read_int64s(type, count, values, &r.tensor.dims);
    case CUDNN_ATTR_TENSOR_STRIDES: return read_int64s(type, count, values, &r.tensor.strides);
    case CUDNN_ATTR_TENSOR_UNIQUE_ID: return read_int64(type, count, values, &r.tensor.uid);
    case CUDNN_ATTR_TENSOR_IS_VIRTUAL: return read_bool(type, count, values, &r.is_virtual);
    case CUDNN_ATTR_TENSOR_IS_BY_VALUE: return read_bool(type, count, values, &r.by_value);
    case CUDNN_ATTR_TENSOR_VECTOR_COUNT: {
      std::int64_t n = 1;
      if (!read_int64(type, count, values, &n)) return false;
      r.vectorized = n != 1;
      return true;
    }
    case CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION: return true;  // matters only with a vector count
    case CUDNN_ATTR_TENSOR_REORDERING_MODE: {
      int mode = 0;
      if (!read_enum(type, CUDNN_TYPE_TENSOR_REORDERING_MODE, count, values, &mode)) return false;
      r.reordered = mode != CUDNN_TENSOR_REORDERING_NONE;
      return true;
    }
    case CUDNN_ATTR_TENSOR_RAGGED_OFFSET_DESC: {
      cudnnBackendDescriptor_t ragged = nullptr;
      if (!read_descriptor(type, count, values, &ragged)) return false;
      r.ragged = ragged != nullptr;
      return true;
    }
    default: return false;
  }
}

bool set_convolution(GraphRecords::Record& r, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                     std::int64_t count, const void* values) {
  switch (name) {
    case CUDNN_ATTR_CONVOLUTION_COMP_TYPE: return read_enum(type, CUDNN_TYPE_DATA_TYPE, count, values, &r.compute_type);
    case CUDNN_ATTR_CONVOLUTION_CONV_MODE:
      return read_enum(type, CUDNN_TYPE_CONVOLUTION_MODE, count, values, &r.mode);
    case CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS: return read_int64(type, count, values, &r.spatial_dims);
    case CUDNN_ATTR_CONVOLUTION_DILATIONS: return read_int64s(type, count, values, &r.dilations);
    case CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES: return read_int64s(type, count, values, &r.strides);
    case CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS: return read_int64s(type, count, values, &r.pre_pads);
    case CUDNN_ATTR_CONVOLUTION_POST_PADDINGS: return read_int64s(type, count, values, &r.post_pads);
    default: return false;
  }
}

// The three operations name the same roles differently; `role` 'x', 'w', 'y' in forward naming.
char operation_role(cudnnBackendAttributeName_t name) {
  switch (name) {
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X: return 'x';
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW: return 'w';
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY: return 'y';
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC: return 'c';
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA: return 'a';
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA: return 'b';
    default: return 0;
  }
}

bool set_operation(GraphRecords::Record& r, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                   std::int64_t count, const void* values) {
  switch (operation_role(name)) {
    case 'x': return read_descriptor(type, count, values, &r.x);
    case 'w': return read_descriptor(type, count, values, &r.w);
    case 'y': return read_descriptor(type, count, values, &r.y);
    case 'c': return read_descriptor(type, count, values, &r.conv);
    case 'a': return read_scalar(type, count, values, &r.alpha);
    case 'b': return read_scalar(type, count, values, &r.beta);
    default: return false;
  }
}

// The deprecated handle attributes, by value (cuDNN 9.19's headers mark them deprecated).
constexpr int kOperationGraphHandle = 800;
constexpr int kExecutionPlanHandle = 400;

bool read_handle(cudnnBackendAttributeType_t type, std::int64_t count, const void* values, cudnnHandle_t* out) {
  if (type != CUDNN_TYPE_HANDLE || count != 1 || !values) return false;
  *out = *static_cast<const cudnnHandle_t*>(values);
  return true;
}

bool set_graph(GraphRecords::Record& r, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
               std::int64_t count, const void* values) {
  if (static_cast<int>(name) == kOperationGraphHandle) return read_handle(type, count, values, &r.handle);
  switch (name) {
    case CUDNN_ATTR_OPERATIONGRAPH_OPS: {
      if (type != CUDNN_TYPE_BACKEND_DESCRIPTOR || count < 0 || (count > 0 && !values)) return false;
      const auto* ops = static_cast<const cudnnBackendDescriptor_t*>(values);
      r.ops.assign(ops, ops + count);
      return true;
    }
    case CUDNN_ATTR_OPERATIONGRAPH_IS_DYNAMIC_SHAPE_ENABLED: {
      bool dynamic = false;
      return read_bool(type, count, values, &dynamic) && !dynamic;
    }
    default: return false;
  }
}

// Engines, heuristics, configurations: only the descriptor each is made from matters; their other
// attributes (engine index, knobs, SM count, device properties) choose cuDNN's implementation,
// which ucudnn replaces.
cudnnBackendAttributeName_t source_attribute(cudnnBackendDescriptorType_t type) {
  switch (type) {
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR: return CUDNN_ATTR_ENGINE_OPERATION_GRAPH;
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR: return CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH;
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR: return CUDNN_ATTR_ENGINECFG_ENGINE;
    default: return CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG;
  }
}

bool set_plan(GraphRecords::Record& r, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
              std::int64_t count, const void* values) {
  if (static_cast<int>(name) == kExecutionPlanHandle) return read_handle(type, count, values, &r.handle);
  switch (name) {
    case CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG: return read_descriptor(type, count, values, &r.source);
    case CUDNN_ATTR_EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS:
    case CUDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE:
    case CUDNN_ATTR_EXECUTION_PLAN_DEVICEPROP: return true;
    default: return false;  // a plan made from its JSON representation has no chain to follow
  }
}

bool set_variant_pack(GraphRecords::Record& r, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                      std::int64_t count, const void* values) {
  switch (name) {
    case CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS: return read_int64s(type, count, values, &r.pack.uids);
    case CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS: {
      if (type != CUDNN_TYPE_VOID_PTR || count < 0 || (count > 0 && !values)) return false;
      const auto* pointers = static_cast<void* const*>(values);
      r.pack.pointers.assign(pointers, pointers + count);
      return true;
    }
    case CUDNN_ATTR_VARIANT_PACK_WORKSPACE:
      if (type != CUDNN_TYPE_VOID_PTR || count != 1 || !values) return false;
      r.pack.workspace = *static_cast<void* const*>(values);
      return true;
    default:
      r.pack.overrides = true;  // intermediates, shape overrides: not a plain convolution call
      return true;
  }
}

}  // namespace

bool graph_records_track(cudnnBackendDescriptorType_t type) {
  switch (type) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR:
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR:
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR:
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR:
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR: return true;
    default: return false;
  }
}

void GraphRecords::on_create(cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t descriptor) {
  if (!descriptor || !graph_records_track(type)) return;
  auto record = std::make_shared<Record>();
  record->type = type;
  std::unique_lock<std::shared_mutex> lock(mutex_);
  records_[descriptor] = std::move(record);  // a reused address is a new descriptor
}

void GraphRecords::on_set(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                          cudnnBackendAttributeType_t type, std::int64_t count, const void* values) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto it = records_.find(descriptor);
  if (it == records_.end()) return;
  Record& r = *it->second;
  bool understood = false;
  switch (r.type) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR: understood = set_tensor(r, name, type, count, values); break;
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR: understood = set_convolution(r, name, type, count, values); break;
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: understood = set_graph(r, name, type, count, values); break;
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: understood = set_plan(r, name, type, count, values); break;
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR: understood = set_variant_pack(r, name, type, count, values); break;
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR:
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR:
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR:
      understood = name != source_attribute(r.type) || read_descriptor(type, count, values, &r.source);
      break;
    default: understood = is_operation(r.type) && set_operation(r, name, type, count, values); break;
  }
  if (!understood) r.unsupported = true;
}

const GraphRecords::Record* GraphRecords::find_locked(cudnnBackendDescriptor_t descriptor) const {
  auto it = records_.find(descriptor);
  return it == records_.end() ? nullptr : it->second.get();
}

namespace {

// A finalized tensor ucudnn can hand micro-batches of: real memory, plain layout.
bool plain_tensor(const GraphRecords::Record* t) {
  return t && t->type == CUDNN_BACKEND_TENSOR_DESCRIPTOR && t->finalized && !t->unsupported && !t->is_virtual &&
         !t->by_value && !t->vectorized && !t->reordered && !t->ragged && t->tensor.data_type >= 0 &&
         !t->tensor.dims.empty() && t->tensor.dims.size() == t->tensor.strides.size();
}

}  // namespace

void GraphRecords::finalize_locked(Record& r) {
  r.finalized = true;
  auto copied = std::move(r.convolution);
  if (r.unsupported) return;
  if (is_operation(r.type)) {
    const Record *x = find_locked(r.x), *w = find_locked(r.w), *y = find_locked(r.y), *c = find_locked(r.conv);
    if (!plain_tensor(x) || !plain_tensor(w) || !plain_tensor(y)) return;
    if (!c || c->type != CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR || !c->finalized || c->unsupported) return;
    auto conv = std::make_shared<GraphConvolution>();
    conv->op = op_of(r.type);
    conv->x = x->tensor;
    conv->w = w->tensor;
    conv->y = y->tensor;
    conv->compute_type = c->compute_type;
    conv->mode = c->mode;
    conv->pre_pads = c->pre_pads;
    conv->post_pads = c->post_pads;
    conv->strides = c->strides;
    conv->dilations = c->dilations;
    conv->alpha = r.alpha;
    conv->beta = r.beta;
    r.convolution = std::move(conv);
    return;
  }
  switch (r.type) {
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: {
      if (r.ops.size() != 1) return;  // fused graphs pass through
      const Record* op = find_locked(r.ops.front());
      if (!op || !op->finalized || !op->convolution) return;
      auto conv = std::make_shared<GraphConvolution>(*op->convolution);
      conv->handle = r.handle;
      r.convolution = std::move(conv);
      return;
    }
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR:
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR:
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR:
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: {
      // A configuration or engine cuDNN copied out and the program finalized again (new knobs)
      // still means what it was copied from.
      if (!r.source) {
        r.convolution = std::move(copied);
        return;
      }
      // The chain back to the graph; a link the program did not finalize is followed through.
      const Record* source = find_locked(r.source);
      // Only a plan made straight from an offer is one; a configuration made anew is cuDNN's.
      r.offer = r.type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR && source ? source->offer : -1;
      for (int depth = 0; source && !source->finalized && depth < 4; ++depth) source = find_locked(source->source);
      if (source && source->finalized) r.convolution = source->convolution;
      return;
    }
    default: return;
  }
}

void GraphRecords::on_finalize(cudnnBackendDescriptor_t descriptor) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto it = records_.find(descriptor);
  if (it != records_.end()) finalize_locked(*it->second);
}

void GraphRecords::on_get_descriptors(cudnnBackendDescriptor_t source, cudnnBackendAttributeName_t name,
                                      std::int64_t count, const void* outputs) {
  if (name != CUDNN_ATTR_ENGINEHEUR_RESULTS && name != CUDNN_ATTR_ENGINECFG_ENGINE &&
      name != CUDNN_ATTR_ENGINE_OPERATION_GRAPH && name != CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG) {
    return;
  }
  if (count <= 0 || !outputs) return;
  std::unique_lock<std::shared_mutex> lock(mutex_);
  const Record* from = find_locked(source);
  if (!from) return;
  const auto convolution = from->finalized ? from->convolution : nullptr;
  const auto* out = static_cast<const cudnnBackendDescriptor_t*>(outputs);
  for (std::int64_t i = 0; i < count; ++i) {
    auto it = records_.find(out[i]);
    if (it == records_.end()) continue;
    // cuDNN filled it from a finalized descriptor: it is finalized, and means what its source does.
    Record& r = *it->second;
    r.finalized = true;
    r.unsupported = false;
    r.source = nullptr;
    r.offer = -1;
    r.convolution = convolution;
  }
}

void GraphRecords::mark_offer(cudnnBackendDescriptor_t configuration, int index) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto it = records_.find(configuration);
  if (it != records_.end() && it->second->type == CUDNN_BACKEND_ENGINECFG_DESCRIPTOR) it->second->offer = index;
}

void GraphRecords::on_destroy(cudnnBackendDescriptor_t descriptor) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  records_.erase(descriptor);
}

void GraphRecords::on_reset(cudnnBackendDescriptor_t descriptor) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto it = records_.find(descriptor);
  if (it == records_.end()) return;
  auto fresh = std::make_shared<Record>();
  fresh->type = it->second->type;
  it->second = std::move(fresh);
}

bool GraphRecords::pack_pointers(cudnnBackendDescriptor_t descriptor, const std::int64_t (&uids)[3],
                                 void* (&pointers)[3], void** workspace) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  const Record* r = find_locked(descriptor);
  if (!r || r->type != CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR || !r->finalized || r->unsupported ||
      r->pack.overrides || r->pack.uids.size() != r->pack.pointers.size()) {
    return false;
  }
  for (int i = 0; i < 3; ++i) {
    pointers[i] = nullptr;
    for (std::size_t j = 0; j < r->pack.uids.size(); ++j) {
      if (r->pack.uids[j] == uids[i]) pointers[i] = r->pack.pointers[j];
    }
  }
  *workspace = r->pack.workspace;
  return true;
}

std::optional<GraphPlanFacts> GraphRecords::plan(cudnnBackendDescriptor_t descriptor) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  const Record* r = find_locked(descriptor);
  if (!r || r->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR || !r->finalized) return std::nullopt;
  GraphPlanFacts facts;
  facts.convolution = r->unsupported ? nullptr : r->convolution;
  facts.handle = r->handle ? r->handle : (facts.convolution ? facts.convolution->handle : nullptr);
  facts.offer = r->offer;
  return facts;
}

std::shared_ptr<const GraphConvolution> GraphRecords::convolution_of(cudnnBackendDescriptor_t descriptor) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  const Record* r = find_locked(descriptor);
  if (!r || !r->finalized || r->unsupported) return nullptr;
  return r->convolution;
}

bool GraphRecords::tracks(cudnnBackendDescriptor_t descriptor) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  return records_.count(descriptor) > 0;
}

std::size_t GraphRecords::size() const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  return records_.size();
}

}  // namespace ucudnn::api
