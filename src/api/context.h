#pragma once
// UcudnnContext: the state behind a UcudnnHandle_t: the settings it was created with, and what
// its own setters and calls change since.

#include <cudnn.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "core/batch_policy.h"
#include "core/candidate_kinds.h"
#include "core/conv_key.h"
#include "core/env_config.h"
#include "core/memory_budget.h"
#include "runtime/owned.h"

struct UcudnnContext {
  /// A handle over the process's settings as they are at its creation.
  explicit UcudnnContext(const ucudnn::Settings& process)
      : settings(process),
        policy(process.policy),
        default_workspace_limit(process.default_workspace_limit),
        candidates(process.candidates),
        graph_replay(process.graph_replay) {}

  ucudnn::runtime::CudnnHandle cudnn_handle;  ///< owned: destroyed with the context
  cudnnHandle_t cudnn() const { return cudnn_handle.get(); }
  int device = 0;                 ///< the CUDA device current when the handle was created
  /// Copied at creation and never changed: the handle's own setters change the four below.
  const ucudnn::Settings settings;
  std::atomic<ucudnn::BatchSizePolicy> policy;
  std::atomic<std::size_t> default_workspace_limit;
  std::atomic<ucudnn::CandidateSet> candidates;  ///< what plans are made of
  std::atomic<bool> graph_replay;                ///< recurring calls replayed as CUDA graphs
  std::atomic<int> layer_id{-1};                 ///< WD: calls belong to this layer's own segment (-1: shared by shape)

  /// The limit to plan under: what the call asks (nullopt: it asks none), capped by the forced one.
  std::size_t requested_limit_for(std::optional<std::size_t> asked) const {
    const std::optional<std::size_t>& forced = settings.forced_workspace_limit;
    if (forced) return asked ? std::min(*asked, *forced) : *forced;
    return asked.value_or(default_workspace_limit.load());
  }

  /// What get/find calls said of a kernel: the limit they last asked for (so that workspace-size
  /// queries and convolutions run the plan that call reported), and whether they offered the plan
  /// (the virtual algorithm: a caller that then passes a real algorithm chose it, and gets it).
  struct Remembered {
    std::optional<std::size_t> requested_limit;
    bool offered = false;
  };
  /// One lookup per call.
  Remembered remembered(const ucudnn::ConvKey& key) const {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = kernels.find(key);
    return it == kernels.end() ? Remembered{} : it->second;
  }
  void remember_limit(const ucudnn::ConvKey& key, std::size_t limit) {
    std::lock_guard<std::mutex> lock(mutex);
    kernels[key].requested_limit = limit;
  }
  void remember_offer(const ucudnn::ConvKey& key) {
    std::lock_guard<std::mutex> lock(mutex);
    kernels[key].offered = true;
  }

 private:
  mutable std::mutex mutex;
  std::unordered_map<ucudnn::ConvKey, Remembered, ucudnn::ConvKeyHash> kernels;
};
