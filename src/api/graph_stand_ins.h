#pragma once
// Which plan stands in for a kernel under a memory budget (api/graph_frontend.h): of the plans a
// program builds for one convolution that do not fit, only the first becomes ucudnn's, and any
// later plan of the same engine configuration (a program rebuilding it, as XLA does at run time).
// The others stay cuDNN's, for the framework to drop as it would without ucudnn: a framework's
// benchmark times a bounded number of candidates (PyTorch: the first ten), and copies of ucudnn's
// plan there pushed out the fitting engines it would have chosen. CUDA-free, thread-safe.

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/conv_key.h"

namespace ucudnn::api {

class GraphStandIns {
 public:
  /// Whether a plan of `kernel` that does not fit stands in for it. `identity` is its engine
  /// configuration's (runtime/backend_graph.h's read_plan_identity), nullopt where unreadable:
  /// such a plan stands in only as its kernel's first.
  bool stands_in(const ConvKey& kernel, const std::optional<std::string>& identity) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto [it, first] = chosen_.try_emplace(kernel, identity);
    return first || (identity && it->second == identity);
  }

 private:
  std::mutex mutex_;
  std::unordered_map<ConvKey, std::optional<std::string>, ConvKeyHash> chosen_;
};

}  // namespace ucudnn::api
