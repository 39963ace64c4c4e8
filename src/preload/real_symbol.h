#pragma once
// A real cuDNN function as the LD_PRELOAD layer finds it. Only a found symbol is cached: cuDNN may
// be loaded after the first call (a framework that dlopens it late), and a failed lookup must
// not turn every later call into NOT_INITIALIZED for the rest of the process.

#include <atomic>
#include <cstdio>

namespace ucudnn::preload {

template <typename Function>
class RealSymbol {
 public:
  /// The function `name` as `resolve(name)` (returning void*) finds it; null, with one message
  /// per symbol, while it cannot be found.
  template <typename Resolver>
  Function get(const char* name, Resolver&& resolve) {
    Function function = cached_.load(std::memory_order_acquire);
    if (function) return function;
    function = reinterpret_cast<Function>(resolve(name));
    if (function) {
      cached_.store(function, std::memory_order_release);
    } else if (!warned_.exchange(true, std::memory_order_relaxed)) {
      std::fprintf(stderr, "ucudnn preload: error: cannot find cuDNN's %s (is libcudnn.so.9 loaded?)\n", name);
    }
    return function;
  }

 private:
  std::atomic<Function> cached_{nullptr};
  std::atomic<bool> warned_{false};
};

}  // namespace ucudnn::preload
