#pragma once
// When a plan's calls are worth replaying as a CUDA graph: the decision alone, without CUDA, so
// that it is tested on any machine (runtime/graph_replay.h does the capturing and launching).
//
// A legacy cuDNN call costs 50-150 us of host time with cuDNN 9 (measured on an H100,
// bench/legacy_plan_cache.cpp), more than a short tensor-core kernel takes on the GPU; a captured
// graph of the same calls launches in a few. A graph is only valid for the exact call it captured:
// the same buffers, workspace and scaling factors (cuDNN bakes the host scalars into its kernels).
// So a call is captured only when its signature recurs, the first time it is seen it runs as it
// is, and a plan keeps graphs for its last signatures, up to its capacity. Recurring need not be
// back to back: layers of one shape share a plan (ResNet-50's third stage has six), so their
// calls interleave within a step, and each signature is captured at its second sight within the
// last `capacity` direct calls. Calls whose buffers never recur cost a few comparisons each.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace ucudnn::runtime {

/// Everything a captured call depends on besides the plan itself.
struct CallSignature {
  const void* x = nullptr;
  const void* y = nullptr;
  const void* w = nullptr;
  const void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
  std::uint64_t alpha_bits = 0;  ///< the scaling factors' bytes (float or double)
  std::uint64_t beta_bits = 0;
  // Not the stream: a graph launches on whichever stream the call names.

  bool operator==(const CallSignature& o) const {
    return x == o.x && y == o.y && w == o.w && workspace == o.workspace && workspace_bytes == o.workspace_bytes &&
           alpha_bits == o.alpha_bits && beta_bits == o.beta_bits;
  }
  bool operator!=(const CallSignature& o) const { return !(*this == o); }
};

/// The bytes of a host scaling factor: a double for double data, a float otherwise.
inline std::uint64_t scalar_bits(const void* scalar, bool is_double) {
  std::uint64_t bits = 0;
  if (!scalar) return bits;
  std::memcpy(&bits, scalar, is_double ? sizeof(double) : sizeof(float));
  return bits;
}

enum class ReplayAction {
  kRunDirectly,  ///< first sight of this signature (or replay refused): the calls as they are
  kCapture,      ///< the signature recurred: capture it, then launch the graph
  kLaunch,       ///< a graph of this signature exists
};

/// The graphs of one plan, most recently used first. `Graph` is any movable type (a CUDA graph
/// executable in the library, an int in tests).
template <typename Graph>
class ReplayCache {
 public:
  explicit ReplayCache(std::size_t capacity = 16) : capacity_(capacity) {}

  /// What to do with a call of this signature. On kLaunch, `*graph` points at its graph (valid
  /// until the next store()).
  ReplayAction decide(const CallSignature& signature, Graph** graph) {
    if (refused_) return ReplayAction::kRunDirectly;
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].first == signature) {
        // Most recently used first.
        std::rotate(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(i),
                    entries_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        *graph = &entries_[0].second;
        return ReplayAction::kLaunch;
      }
    }
    const auto seen = std::find(seen_directly_.begin(), seen_directly_.end(), signature);
    if (seen != seen_directly_.end()) {
      seen_directly_.erase(seen);
      return ReplayAction::kCapture;
    }
    if (seen_directly_.size() == capacity_) seen_directly_.pop_back();
    seen_directly_.insert(seen_directly_.begin(), signature);
    return ReplayAction::kRunDirectly;
  }

  /// Keeps the graph captured for `signature`, dropping the least recently used beyond capacity.
  Graph* store(const CallSignature& signature, Graph graph) {
    if (entries_.size() == capacity_) entries_.pop_back();
    entries_.insert(entries_.begin(), {signature, std::move(graph)});
    return &entries_.front().second;
  }

  /// Capturing failed (the plan's calls cannot be captured): every later call runs directly.
  void refuse() {
    refused_ = true;
    entries_.clear();
    seen_directly_.clear();
  }
  bool refused() const { return refused_; }
  std::size_t size() const { return entries_.size(); }

 private:
  std::size_t capacity_;
  std::vector<std::pair<CallSignature, Graph>> entries_;
  std::vector<CallSignature> seen_directly_;  ///< run directly once, most recent first
  bool refused_ = false;
};

}  // namespace ucudnn::runtime
