#pragma once
// Micro-batch offers (UCUDNN_MICRO_BATCH_OFFERS=1, under a memory budget): the engine heuristics of
// a one-convolution graph answer one configuration more than cuDNN's, a copy of cuDNN's first
// placed second. A plan the program builds from that copy is ucudnn's, planned under half of what
// is surely free, so the program's own autotuner times micro-batching beside every configuration
// of cuDNN's, in the program's own memory, and keeps the faster; cuDNN's configurations all stay,
// in their order.
//
// Why second: a program that runs the first configuration that works (PyTorch without benchmark
// mode) still runs cuDNN's first, and reaches the offer only where that one's workspace cannot be
// had; one that times only its first few (PyTorch's benchmark_limit, 10) still times the offer.
// Why half: PyTorch allocates the largest workspace among its plans, halves it until the allocation
// succeeds, and drops the plans above what it got, which is at least half of what it could have
// had, itself at least what was left of the budget when ucudnn planned.
//
// Not for programs that rebuild a plan from its engine and knobs (XLA): the copy has cuDNN's
// first configuration's, so a rebuild would be cuDNN's plan with the offer's smaller workspace.

#include <cudnn.h>

#include <cstddef>
#include <cstdint>

namespace ucudnn::api {

using GetAttribute = cudnnStatus_t (*)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
                                       cudnnBackendAttributeType_t, int64_t, int64_t*, void*);

/// Where the offer goes among the results.
inline constexpr std::int64_t kOfferSlot = 1;

/// CUDNN_ATTR_ENGINEHEUR_RESULTS of `heuristics` through `real`, with the offer: a count query
/// (requested 0) answers one more than cuDNN has; a query with room for two or more results fills
/// them as [cuDNN's 1st, the offer (cuDNN's 1st again), cuDNN's 2nd, ...] and sets `*offer` to the
/// descriptor holding the offer. Any other query, no result, or a failure on the way: exactly
/// cuDNN's answer, `*offer` null.
cudnnStatus_t get_results_with_offer(GetAttribute real, cudnnBackendDescriptor_t heuristics, int64_t requested,
                                     int64_t* count, void* values, cudnnBackendDescriptor_t* offer);

/// The workspace an offered plan is planned under: half of `plan_under` (what is surely free, a
/// power of two), so that it survives the program halving its largest workspace request.
inline std::size_t offer_workspace_limit(std::size_t plan_under) { return plan_under / 2; }

}  // namespace ucudnn::api
