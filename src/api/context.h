#pragma once
// UcudnnContext: the state behind a UcudnnHandle_t.

#include <cudnn.h>

#include <atomic>
#include <cstddef>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "core/batch_policy.h"
#include "core/conv_key.h"

struct UcudnnContext {
  cudnnHandle_t cudnn = nullptr;  ///< owned: destroyed with the context
  int device = 0;                 ///< the CUDA device current when the handle was created
  std::atomic<ucudnn::BatchSizePolicy> policy{ucudnn::BatchSizePolicy::kPowerOfTwo};
  std::atomic<std::size_t> default_workspace_limit{std::size_t{64} << 20};
  std::atomic<int> layer_id{-1};  ///< WD: calls belong to this layer's own segment (-1: shared by shape)

  /// The limit each kernel was last asked for by a get/find call, so that workspace-size queries
  /// and convolutions run the plan that call reported.
  std::optional<std::size_t> requested_limit(const ucudnn::ConvKey& key) const {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = requested_limits.find(key);
    if (it == requested_limits.end()) return std::nullopt;
    return it->second;
  }
  void remember_limit(const ucudnn::ConvKey& key, std::size_t limit) {
    std::lock_guard<std::mutex> lock(mutex);
    requested_limits[key] = limit;
  }

 private:
  mutable std::mutex mutex;
  std::unordered_map<ucudnn::ConvKey, std::size_t, ucudnn::ConvKeyHash> requested_limits;
};
