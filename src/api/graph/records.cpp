#include "api/graph/records.h"

#include <mutex>

#include "api/graph/attributes.h"

namespace ucudnn::api {

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
  const bool understood = set_attribute(r.type, r.fields, name, type, count, values);
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
