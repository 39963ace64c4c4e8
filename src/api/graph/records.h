#pragma once
// What a program built with cuDNN's graph API (backend descriptors), as far as ucudnn needs to
// know it: which execution plans run a graph of exactly one convolution, what that convolution
// is, and what each variant pack hands over. The records follow the program's calls
// (create, set, finalize, the getters that copy descriptors out, destroy); cuDNN itself is never
// asked, so the records are CPU-testable and cost no cuDNN call.
//
// A record is kept only for the descriptor types a convolution plan is made of, with the fields of
// its type (one alternative of a variant per kind: tensor, convolution, operation, graph, the
// engine-to-plan chain, variant pack); every other descriptor costs one failed lookup. Attribute
// names come from runtime/backend_attributes.h, the table runtime/backend_graph sets them by.
// Finalizing a descriptor freezes what it refers to by value (a program may destroy a tensor once
// its operation is finalized), and the convolution travels along the chain graph -> engine /
// heuristics -> engine configuration -> plan as a shared, immutable value. Anything a record does
// not understand (an unknown attribute, a virtual or by-value tensor, asymmetric padding, dynamic
// shapes) makes that graph "other": it passes through untouched.
//
// Thread-safe: one reader-writer lock; lookups (execute's) take it shared.

#include <cudnn.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/graph/convolution.h"

namespace ucudnn::api {

class GraphRecords {
 public:
  /// After the real cudnnBackendCreateDescriptor succeeded.
  void on_create(cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t descriptor);
  /// After the real cudnnBackendSetAttribute succeeded, with the same arguments.
  void on_set(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
              cudnnBackendAttributeType_t type, std::int64_t count, const void* values);
  /// After the real cudnnBackendFinalize succeeded.
  void on_finalize(cudnnBackendDescriptor_t descriptor);
  /// After a real cudnnBackendGetAttribute that copied `count` descriptors out of `source`
  /// (heuristics results, a configuration's engine): they inherit its convolution.
  void on_get_descriptors(cudnnBackendDescriptor_t source, cudnnBackendAttributeName_t name, std::int64_t count,
                          const void* outputs);
  /// After on_get_descriptors: `configuration` is micro-batch offer `index` (api/graph/offer.h),
  /// and so is a plan made from it.
  void mark_offer(cudnnBackendDescriptor_t configuration, int index);
  void on_destroy(cudnnBackendDescriptor_t descriptor);
  /// After cudnnBackendInitialize: the descriptor keeps its type and nothing else.
  void on_reset(cudnnBackendDescriptor_t descriptor);

  /// The one convolution a finalized graph, engine, heuristics or configuration is made for; null
  /// for anything else.
  std::shared_ptr<const GraphConvolution> convolution_of(cudnnBackendDescriptor_t descriptor) const;
  /// A finalized plan's facts; nullopt for a descriptor that is not a recorded, finalized plan.
  std::optional<GraphPlanFacts> plan(cudnnBackendDescriptor_t descriptor) const;
  /// The pointers a finalized variant pack gives for `uids` (null where it gives none) and its
  /// workspace, without copying the pack; false when it is not one or is no plain call.
  bool pack_pointers(cudnnBackendDescriptor_t descriptor, const std::int64_t (&uids)[3], void* (&pointers)[3],
                     void** workspace) const;
  /// Whether any record is kept for `descriptor` (tests).
  bool tracks(cudnnBackendDescriptor_t descriptor) const;
  std::size_t size() const;

  struct Record;  ///< one descriptor's record (api/graph/records.cpp)

 private:
  // A descriptor another one refers to, resolved at finalize (null: not tracked).
  const Record* find_locked(cudnnBackendDescriptor_t descriptor) const;
  void finalize_locked(Record& record);

  mutable std::shared_mutex mutex_;
  std::unordered_map<cudnnBackendDescriptor_t, std::shared_ptr<Record>> records_;
};

/// The descriptor types whose records are kept.
bool graph_records_track(cudnnBackendDescriptorType_t type);

}  // namespace ucudnn::api
