#include "api/graph_offer.h"

#include <algorithm>
#include <vector>

namespace ucudnn::api {

cudnnStatus_t get_results_with_offer(GetAttribute real, cudnnBackendDescriptor_t heuristics, int64_t requested,
                                     int64_t* count, void* values, cudnnBackendDescriptor_t* offer) {
  *offer = nullptr;
  auto plain = [&] {
    return real(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, requested, count, values);
  };
  if (!count) return plain();
  if (requested == 0) {
    const cudnnStatus_t status = plain();
    if (status == CUDNN_STATUS_SUCCESS && *count >= 1) ++*count;
    return status;
  }
  if (requested < 2 || !values) return plain();
  auto* slots = static_cast<cudnnBackendDescriptor_t*>(values);
  // cuDNN's results into every slot but the offer's, in order.
  std::vector<cudnnBackendDescriptor_t> others;
  others.reserve(static_cast<std::size_t>(requested - 1));
  for (int64_t i = 0; i < requested; ++i) {
    if (i != kOfferSlot) others.push_back(slots[i]);
  }
  int64_t filled = 0;
  cudnnStatus_t status = real(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                              requested - 1, &filled, others.data());
  if (status != CUDNN_STATUS_SUCCESS || filled < 1) return plain();
  filled = std::min(filled, requested - 1);
  // The offer: cuDNN's first result once more.
  int64_t copied = 0;
  status = real(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &copied,
                &slots[kOfferSlot]);
  if (status != CUDNN_STATUS_SUCCESS || copied != 1) return plain();
  *count = filled + 1;
  *offer = slots[kOfferSlot];
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace ucudnn::api
