#include "api/graph_records.h"

#include <mutex>
#include <variant>

#include "runtime/backend_attributes.h"

namespace ucudnn::api {
namespace {

// What each tracked type of descriptor holds, as the program set it; the fields every record has
// are in GraphRecords::Record.

struct TensorFields {
  GraphTensor tensor;
  bool is_virtual = false, by_value = false, vectorized = false, reordered = false, ragged = false;
};

struct ConvolutionFields {
  int compute_type = -1, mode = CUDNN_CROSS_CORRELATION;
  std::int64_t spatial_dims = -1;
  std::vector<std::int64_t> pre_pads, post_pads, strides, dilations;
};

// A convolution operation: what it refers to, until finalize freezes it.
struct OperationFields {
  const runtime::ConvolutionOperationAttributes* names;  ///< its attributes (never null)
  cudnnBackendDescriptor_t x = nullptr, w = nullptr, y = nullptr, conv = nullptr;
  double alpha = 1.0, beta = 0.0;
};

struct GraphFields {
  std::vector<cudnnBackendDescriptor_t> ops;
  cudnnHandle_t handle = nullptr;
};

// Engines, heuristics, configurations and plans: the descriptor each was made from.
struct ChainFields {
  cudnnBackendDescriptor_t source = nullptr;
  int offer = -1;                  ///< which micro-batch offer this is, or a plan is made from (-1: none)
  cudnnHandle_t handle = nullptr;  ///< plans only
};

struct VariantPackFields {
  std::vector<std::int64_t> uids;
  std::vector<void*> pointers;
  void* workspace = nullptr;
  bool overrides = false;  ///< dynamic-shape overrides or intermediates: not a plain call
};

using Fields =
    std::variant<TensorFields, ConvolutionFields, OperationFields, GraphFields, ChainFields, VariantPackFields>;

// The fields of a fresh descriptor of a tracked `type`.
Fields fields_for(cudnnBackendDescriptorType_t type) {
  if (const auto* names = runtime::convolution_operation(type)) return OperationFields{names};
  switch (type) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR: return TensorFields{};
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR: return ConvolutionFields{};
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR: return GraphFields{};
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR: return VariantPackFields{};
    default: return ChainFields{};  // engines, heuristics, configurations, plans
  }
}

}  // namespace

struct GraphRecords::Record {
  explicit Record(cudnnBackendDescriptorType_t t) : type(t), fields(fields_for(t)) {}

  cudnnBackendDescriptorType_t type;
  bool finalized = false;
  bool unsupported = false;  ///< set with something this file does not understand
  // Once finalized (or copied out of a finalized one): the convolution of the chain, frozen.
  std::shared_ptr<const GraphConvolution> convolution;
  Fields fields;

  template <typename T>
  T* as() { return std::get_if<T>(&fields); }
  template <typename T>
  const T* as() const { return std::get_if<T>(&fields); }
};

namespace {

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
bool set_tensor(TensorFields& r, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
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

bool set_convolution(ConvolutionFields& r, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
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

bool set_operation(OperationFields& r, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                   std::int64_t count, const void* values) {
  const runtime::ConvolutionOperationAttributes* names = r.names;
  if (name == names->x) return read_descriptor(type, count, values, &r.x);
  if (name == names->w) return read_descriptor(type, count, values, &r.w);
  if (name == names->y) return read_descriptor(type, count, values, &r.y);
  if (name == names->conv) return read_descriptor(type, count, values, &r.conv);
  if (name == names->alpha) return read_scalar(type, count, values, &r.alpha);
  if (name == names->beta) return read_scalar(type, count, values, &r.beta);
  return false;
}

bool read_handle(cudnnBackendAttributeType_t type, std::int64_t count, const void* values, cudnnHandle_t* out) {
  if (type != CUDNN_TYPE_HANDLE || count != 1 || !values) return false;
  *out = *static_cast<const cudnnHandle_t*>(values);
  return true;
}

bool set_graph(GraphFields& r, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
               std::int64_t count, const void* values) {
  if (name == runtime::kOperationGraphHandle) return read_handle(type, count, values, &r.handle);
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

bool set_plan(ChainFields& r, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
              std::int64_t count, const void* values) {
  if (name == runtime::kExecutionPlanHandle) return read_handle(type, count, values, &r.handle);
  switch (name) {
    case CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG: return read_descriptor(type, count, values, &r.source);
    case CUDNN_ATTR_EXECUTION_PLAN_RUN_ONLY_INTERMEDIATE_UIDS:
    case CUDNN_ATTR_EXECUTION_PLAN_KERNEL_CACHE:
    case CUDNN_ATTR_EXECUTION_PLAN_DEVICEPROP: return true;
    default: return false;  // a plan made from its JSON representation has no chain to follow
  }
}

bool set_variant_pack(VariantPackFields& r, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                      std::int64_t count, const void* values) {
  switch (name) {
    case CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS: return read_int64s(type, count, values, &r.uids);
    case CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS: {
      if (type != CUDNN_TYPE_VOID_PTR || count < 0 || (count > 0 && !values)) return false;
      const auto* pointers = static_cast<void* const*>(values);
      r.pointers.assign(pointers, pointers + count);
      return true;
    }
    case CUDNN_ATTR_VARIANT_PACK_WORKSPACE:
      if (type != CUDNN_TYPE_VOID_PTR || count != 1 || !values) return false;
      r.workspace = *static_cast<void* const*>(values);
      return true;
    default:
      r.overrides = true;  // intermediates, shape overrides: not a plain convolution call
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
  auto record = std::make_shared<Record>(type);
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
  if (auto* tensor = r.as<TensorFields>()) {
    understood = set_tensor(*tensor, name, type, count, values);
  } else if (auto* convolution = r.as<ConvolutionFields>()) {
    understood = set_convolution(*convolution, name, type, count, values);
  } else if (auto* operation = r.as<OperationFields>()) {
    understood = set_operation(*operation, name, type, count, values);
  } else if (auto* graph = r.as<GraphFields>()) {
    understood = set_graph(*graph, name, type, count, values);
  } else if (auto* pack = r.as<VariantPackFields>()) {
    understood = set_variant_pack(*pack, name, type, count, values);
  } else if (auto* chain = r.as<ChainFields>()) {
    understood = r.type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR
                     ? set_plan(*chain, name, type, count, values)
                     : name != source_attribute(r.type) || read_descriptor(type, count, values, &chain->source);
  }
  if (!understood) r.unsupported = true;
}

const GraphRecords::Record* GraphRecords::find_locked(cudnnBackendDescriptor_t descriptor) const {
  auto it = records_.find(descriptor);
  return it == records_.end() ? nullptr : it->second.get();
}

namespace {

// A finalized tensor ucudnn can hand micro-batches of: real memory, plain layout.
const GraphTensor* plain_tensor(const GraphRecords::Record* record) {
  const TensorFields* t = record ? record->as<TensorFields>() : nullptr;
  if (!t || !record->finalized || record->unsupported || t->is_virtual || t->by_value || t->vectorized ||
      t->reordered || t->ragged || t->tensor.data_type < 0 || t->tensor.dims.empty() ||
      t->tensor.dims.size() != t->tensor.strides.size()) {
    return nullptr;
  }
  return &t->tensor;
}

}  // namespace

void GraphRecords::finalize_locked(Record& r) {
  r.finalized = true;
  auto copied = std::move(r.convolution);
  if (r.unsupported) return;
  if (const auto* operation = r.as<OperationFields>()) {
    const GraphTensor *x = plain_tensor(find_locked(operation->x)), *w = plain_tensor(find_locked(operation->w)),
                      *y = plain_tensor(find_locked(operation->y));
    if (!x || !w || !y) return;
    const Record* c = find_locked(operation->conv);
    const ConvolutionFields* fields = c ? c->as<ConvolutionFields>() : nullptr;
    if (!fields || !c->finalized || c->unsupported) return;
    auto conv = std::make_shared<GraphConvolution>();
    conv->op = operation->names->op;
    conv->x = *x;
    conv->w = *w;
    conv->y = *y;
    conv->compute_type = fields->compute_type;
    conv->mode = fields->mode;
    conv->pre_pads = fields->pre_pads;
    conv->post_pads = fields->post_pads;
    conv->strides = fields->strides;
    conv->dilations = fields->dilations;
    conv->alpha = operation->alpha;
    conv->beta = operation->beta;
    r.convolution = std::move(conv);
  } else if (const auto* graph = r.as<GraphFields>()) {
    if (graph->ops.size() != 1) return;  // fused graphs pass through
    const Record* op = find_locked(graph->ops.front());
    if (!op || !op->finalized || !op->convolution) return;
    auto conv = std::make_shared<GraphConvolution>(*op->convolution);
    conv->handle = graph->handle;
    r.convolution = std::move(conv);
  } else if (auto* chain = r.as<ChainFields>()) {
    // A configuration or engine cuDNN copied out and the program finalized again (new knobs)
    // still means what it was copied from.
    if (!chain->source) {
      r.convolution = std::move(copied);
      return;
    }
    // The chain back to the graph; a link the program did not finalize is followed through.
    const Record* source = find_locked(chain->source);
    const ChainFields* source_chain = source ? source->as<ChainFields>() : nullptr;
    // Only a plan made straight from an offer is one; a configuration made anew is cuDNN's.
    chain->offer = r.type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR && source_chain ? source_chain->offer : -1;
    // Plan, engine configuration, engine, operation graph: no chain to a graph is longer.
    constexpr int kLongestChain = 4;
    for (int depth = 0; source && !source->finalized && depth < kLongestChain; ++depth) {
      source_chain = source->as<ChainFields>();
      source = source_chain ? find_locked(source_chain->source) : nullptr;
    }
    if (source && source->finalized) r.convolution = source->convolution;
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
    if (auto* chain = r.as<ChainFields>()) *chain = ChainFields{};
    r.convolution = convolution;
  }
}

void GraphRecords::mark_offer(cudnnBackendDescriptor_t configuration, int index) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto it = records_.find(configuration);
  if (it == records_.end() || it->second->type != CUDNN_BACKEND_ENGINECFG_DESCRIPTOR) return;
  if (auto* chain = it->second->as<ChainFields>()) chain->offer = index;
}

void GraphRecords::on_destroy(cudnnBackendDescriptor_t descriptor) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  records_.erase(descriptor);
}

void GraphRecords::on_reset(cudnnBackendDescriptor_t descriptor) {
  std::unique_lock<std::shared_mutex> lock(mutex_);
  auto it = records_.find(descriptor);
  if (it == records_.end()) return;
  it->second = std::make_shared<Record>(it->second->type);
}

bool GraphRecords::pack_pointers(cudnnBackendDescriptor_t descriptor, const std::int64_t (&uids)[3],
                                 void* (&pointers)[3], void** workspace) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  const Record* r = find_locked(descriptor);
  const VariantPackFields* pack = r ? r->as<VariantPackFields>() : nullptr;
  if (!pack || !r->finalized || r->unsupported || pack->overrides || pack->uids.size() != pack->pointers.size()) {
    return false;
  }
  for (int i = 0; i < 3; ++i) {
    pointers[i] = nullptr;
    for (std::size_t j = 0; j < pack->uids.size(); ++j) {
      if (pack->uids[j] == uids[i]) pointers[i] = pack->pointers[j];
    }
  }
  *workspace = pack->workspace;
  return true;
}

std::optional<GraphPlanFacts> GraphRecords::plan(cudnnBackendDescriptor_t descriptor) const {
  std::shared_lock<std::shared_mutex> lock(mutex_);
  const Record* r = find_locked(descriptor);
  if (!r || r->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR || !r->finalized) return std::nullopt;
  const ChainFields& chain = *r->as<ChainFields>();
  GraphPlanFacts facts;
  facts.convolution = r->unsupported ? nullptr : r->convolution;
  facts.handle = chain.handle ? chain.handle : (facts.convolution ? facts.convolution->handle : nullptr);
  facts.offer = chain.offer;
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
