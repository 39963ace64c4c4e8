#pragma once
// The raw cuDNN backend calls that building a convolution's graph and plans
// (runtime/backend_graph.cpp) and listing its engine configurations (runtime/engine_offers.cpp)
// share. Only those two files include this: every raw backend call of ucudnn lives in them.

#include <cudnn.h>

#include <cstdint>
#include <set>
#include <vector>

#include "core/conv_key.h"
#include "core/expected.h"
#include "runtime/cuda_status.h"
#include "runtime/owned.h"

namespace ucudnn::runtime::backend {

Status create(cudnnBackendDescriptorType_t type, BackendDescriptor* out);

template <typename T>
Status set(const BackendDescriptor& d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
           const T* values, std::int64_t count) {
  UCUDNN_CHECK_CUDNN(cudnnBackendSetAttribute(d.get(), name, type, count, values));
  return Status::success();
}

Status set_descriptor(const BackendDescriptor& d, cudnnBackendAttributeName_t name, const BackendDescriptor& value);
Status finalize(const BackendDescriptor& d);

/// A handle of ucudnn's own on the current device for building graphs and plans (never destroyed).
Status planning_handle(cudnnHandle_t* out);

/// The one-operation graph of `key` with the given scaling factors; `keep` receives every
/// descriptor the graph refers to.
Status make_graph(const ConvKey& key, double alpha, double beta, cudnnHandle_t handle, BackendDescriptor* graph,
                  std::vector<BackendDescriptor>* keep);

/// The finalized engine of global index `engine` for `graph`.
Status make_engine(const BackendDescriptor& graph, std::int64_t engine, BackendDescriptor* out);

/// The one descriptor (of `type`) that `owner`'s attribute `name` refers to.
Status referenced(cudnnBackendDescriptor_t owner, cudnnBackendAttributeName_t name, cudnnBackendDescriptorType_t type,
                  BackendDescriptor* out);

/// One value (an int64 or an enum) of `d`'s attribute `name`.
template <typename T>
Status read_value(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                  T* value) {
  std::int64_t count = 0;
  UCUDNN_CHECK_CUDNN(cudnnBackendGetAttribute(d, name, type, 1, &count, value));
  return Status::success();
}

/// The notes of kind `Note` an engine has under attribute `name`, added to `out`.
template <typename Note>
Status read_notes(const BackendDescriptor& engine, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                  std::set<int>* out) {
  Note notes[32];
  std::int64_t count = 0;
  UCUDNN_CHECK_CUDNN(cudnnBackendGetAttribute(engine.get(), name, type, 32, &count, notes));
  for (std::int64_t i = 0; i < count; ++i) out->insert(static_cast<int>(notes[i]));
  return Status::success();
}

}  // namespace ucudnn::runtime::backend

// Unqualified in the two files that include this.
namespace ucudnn::runtime {
using backend::create;
using backend::finalize;
using backend::make_engine;
using backend::make_graph;
using backend::planning_handle;
using backend::read_notes;
using backend::read_value;
using backend::referenced;
using backend::set;
using backend::set_descriptor;
}  // namespace ucudnn::runtime
