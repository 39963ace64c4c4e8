#pragma once
// Which plan stands in for a kernel under a memory budget (api/graph/frontend.h): of the plans a
// program builds for one convolution that do not fit, only the first becomes ucudnn's, and any
// later plan of the same engine configuration (a program rebuilding it, as XLA does at run time).
// The others stay cuDNN's, for the framework to drop as it would without ucudnn: a framework's
// benchmark times a bounded number of candidates (PyTorch: the first ten), and copies of ucudnn's
// plan there pushed out the fitting engines it would have chosen. CUDA-free, thread-safe.

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/conv_key.h"

namespace ucudnn::api {

class GraphStandIns {
 public:
  /// Whether a plan of `kernel` that does not fit stands in for it, and if so the limit to plan it
  /// under: `limit` for the kernel's first, the first's for a rebuild (so that a program that sized
  /// its buffer when it chose the plan, as XLA does, is told the same workspace at run time).
  /// `identity` is the plan's engine configuration (runtime/backend_graph.h's read_plan_identity),
  /// nullopt where unreadable: such a plan stands in only as its kernel's first.
  std::optional<std::size_t> stands_in(const ConvKey& kernel, const std::optional<std::string>& identity,
                                       std::size_t limit) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto [it, first] = chosen_.try_emplace(kernel, Chosen{identity, limit});
    if (first || (identity && it->second.identity == identity)) return it->second.limit;
    return std::nullopt;
  }

 private:
  struct Chosen {
    std::optional<std::string> identity;
    std::size_t limit = 0;
  };
  std::mutex mutex_;
  std::unordered_map<ConvKey, Chosen, ConvKeyHash> chosen_;
};

}  // namespace ucudnn::api
