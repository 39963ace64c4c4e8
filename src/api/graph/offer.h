#pragma once
// Micro-batch offers (UCUDNN_MICRO_BATCH_OFFERS, under a memory budget): the engine heuristics of a
// one-convolution graph answer up to kOffers configurations more than cuDNN's, copies of cuDNN's
// first placed right after it. A plan the program builds from offer i is ucudnn's, planned under
// offer_workspace_limit(i), so that the program's own autotuner times micro-batching at a few
// workspace sizes beside every configuration of cuDNN's, in the program's own memory, and keeps the
// fastest it can allocate; cuDNN's configurations all stay, in their order.
//
// The sizes: what the program may reach (what was left of the budget when the process's first
// handle on the device was made, never more than is free now, a power of two), then its half and
// quarter. Where memory is scarce the program cannot allocate the larger ones and drops them
// (PyTorch allocates the largest workspace among its plans, halves it until the allocation
// succeeds, and drops the plans above). An offer whose size cuDNN's first configuration fits
// itself would only repeat it, so it is not made (where that configuration's workspace can be
// read, cuDNN 9.2 on: ucudnn asks the heuristics for it into a descriptor of its own), and a plan
// built from one all the same is refused (NOT_SUPPORTED: the program skips it, as it skips any
// configuration that does not apply). Where memory is plentiful no offer is made: the results are
// cuDNN's alone, and a program that times only its first few still times those.
//
// Why right after cuDNN's first: a program that runs the first configuration that works (PyTorch
// without benchmark mode) still runs cuDNN's first, and reaches the offers only where that one's
// workspace cannot be had; one that times only its first few (PyTorch's benchmark_limit, 10) still
// times them.
//
// Not for programs that rebuild a plan from its engine and knobs (XLA): an offer has cuDNN's first
// configuration's, so a rebuild would be cuDNN's plan with the offer's smaller workspace. Hence
// the default, UCUDNN_MICRO_BATCH_OFFERS=auto: offers where the process has loaded PyTorch's CUDA
// library and neither XLA nor TensorFlow (program_takes_offers).

#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ucudnn::api {

using GetAttribute = cudnnStatus_t (*)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
                                       cudnnBackendAttributeType_t, int64_t, int64_t*, void*);

/// How many offers, and the first one's place among the results (offer i is at kFirstOfferSlot + i).
inline constexpr int kOffers = 3;
inline constexpr std::int64_t kFirstOfferSlot = 1;

/// How many offers to make where the program may reach `reachable` and cuDNN's first configuration
/// needs `first_workspace`: one per size (offer_workspace_limit) that configuration does not fit.
/// The sizes halve, so these are the last ones: offer i of n has size index kOffers - n + i.
int offers_wanted(std::size_t reachable, std::size_t first_workspace);

/// CUDNN_ATTR_ENGINEHEUR_RESULTS of `heuristics` through `real`, with `wanted` offers (0 to
/// kOffers; offers_wanted): a count query (requested 0) answers `wanted` more than cuDNN has (where
/// it has any); a query with room for them fills [cuDNN's 1st, the offers (cuDNN's 1st again,
/// each), cuDNN's 2nd, ...], each of the program's descriptors once, and sets `offers[s]` to the
/// descriptor holding the offer of size index s (null for a size not offered). No offer wanted,
/// any other query, no result, or a failure on the way: exactly cuDNN's answer, every `offers[s]`
/// null.
cudnnStatus_t get_results_with_offers(GetAttribute real, cudnnBackendDescriptor_t heuristics, int64_t requested,
                                      int64_t* count, void* values, int wanted,
                                      cudnnBackendDescriptor_t (&offers)[kOffers]);

/// Whether a process with these shared objects loaded (file names, no folder) takes offers under
/// auto: it has PyTorch's CUDA library (libtorch_cuda.so), whose benchmark times the plans it is
/// given and runs the one it timed, and no library of XLA's, JAX's or TensorFlow's (which rebuild
/// plans from engine and knobs).
bool program_takes_offers(const std::vector<std::string>& loaded_objects);

/// The file names of the shared objects loaded in this process (dl_iterate_phdr).
std::vector<std::string> loaded_object_names();

/// The workspace offer `index` is planned under, from what the program may reach (a power of two).
inline std::size_t offer_workspace_limit(std::size_t reachable, int index) { return reachable >> index; }

}  // namespace ucudnn::api
