#include "api/graph/attributes.h"

namespace ucudnn::api {
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

bool set_attribute(cudnnBackendDescriptorType_t type, Fields& fields, cudnnBackendAttributeName_t name,
                   cudnnBackendAttributeType_t attribute_type, std::int64_t count, const void* values) {
  if (auto* tensor = std::get_if<TensorFields>(&fields)) {
    return set_tensor(*tensor, name, attribute_type, count, values);
  } else if (auto* convolution = std::get_if<ConvolutionFields>(&fields)) {
    return set_convolution(*convolution, name, attribute_type, count, values);
  } else if (auto* operation = std::get_if<OperationFields>(&fields)) {
    return set_operation(*operation, name, attribute_type, count, values);
  } else if (auto* graph = std::get_if<GraphFields>(&fields)) {
    return set_graph(*graph, name, attribute_type, count, values);
  } else if (auto* pack = std::get_if<VariantPackFields>(&fields)) {
    return set_variant_pack(*pack, name, attribute_type, count, values);
  } else if (auto* chain = std::get_if<ChainFields>(&fields)) {
    return type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR
                     ? set_plan(*chain, name, attribute_type, count, values)
                     : name != source_attribute(type) || read_descriptor(attribute_type, count, values, &chain->source);
  }
  return false;
}

}  // namespace ucudnn::api
