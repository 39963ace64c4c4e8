#include "api/graph/offer.h"

#include <link.h>

#include <algorithm>
#include <vector>

namespace ucudnn::api {

int offers_wanted(std::size_t reachable, std::size_t first_workspace) {
  int wanted = 0;
  for (int i = 0; i < kOffers; ++i) wanted += offer_workspace_limit(reachable, i) < first_workspace ? 1 : 0;
  return wanted;
}

cudnnStatus_t get_results_with_offers(GetAttribute real, cudnnBackendDescriptor_t heuristics, int64_t requested,
                                      int64_t* count, void* values, int wanted,
                                      cudnnBackendDescriptor_t (&offers)[kOffers]) {
  std::fill(std::begin(offers), std::end(offers), nullptr);
  auto plain = [&] {
    return real(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, requested, count, values);
  };
  const int n = std::clamp(wanted, 0, kOffers);
  if (!count || n == 0) return plain();
  if (requested == 0) {
    const cudnnStatus_t status = plain();
    if (status == CUDNN_STATUS_SUCCESS && *count >= 1) *count += n;
    return status;
  }
  if (requested < kFirstOfferSlot + n + 1 || !values) return plain();
  auto* slots = static_cast<cudnnBackendDescriptor_t*>(values);
  auto is_offer_slot = [n](int64_t i) { return i >= kFirstOfferSlot && i < kFirstOfferSlot + n; };
  // cuDNN's results into every slot but the offers', in order; each descriptor is filled once.
  std::vector<cudnnBackendDescriptor_t> others;
  others.reserve(static_cast<std::size_t>(requested - n));
  for (int64_t i = 0; i < requested; ++i) {
    if (!is_offer_slot(i)) others.push_back(slots[i]);
  }
  int64_t filled = 0;
  cudnnStatus_t status = real(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                              requested - n, &filled, others.data());
  if (status != CUDNN_STATUS_SUCCESS || filled < 1) return plain();
  filled = std::min<int64_t>(filled, requested - n);
  // Each offer: cuDNN's first result once more.
  for (int i = 0; i < n; ++i) {
    int64_t copied = 0;
    status = real(heuristics, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &copied,
                  &slots[kFirstOfferSlot + i]);
    if (status != CUDNN_STATUS_SUCCESS || copied != 1) return plain();
  }
  *count = filled + n;
  for (int i = 0; i < n; ++i) offers[kOffers - n + i] = slots[kFirstOfferSlot + i];
  return CUDNN_STATUS_SUCCESS;
}

bool program_takes_offers(const std::vector<std::string>& loaded_objects) {
  auto has = [](const std::string& name, const char* part) { return name.find(part) != std::string::npos; };
  bool pytorch = false;
  for (const std::string& name : loaded_objects) {
    if (has(name, "xla") || has(name, "jax") || has(name, "tensorflow")) return false;
    pytorch = pytorch || name.rfind("libtorch_cuda.so", 0) == 0;
  }
  return pytorch;
}

std::vector<std::string> loaded_object_names() {
  std::vector<std::string> names;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        const std::string path = info->dlpi_name ? info->dlpi_name : "";
        const std::size_t slash = path.rfind('/');
        static_cast<std::vector<std::string>*>(out)->push_back(slash == std::string::npos ? path
                                                                                          : path.substr(slash + 1));
        return 0;
      },
      &names);
  return names;
}

}  // namespace ucudnn::api
