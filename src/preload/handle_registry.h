#pragma once
// The programs' cuDNN handles and the state the LD_PRELOAD layer keeps for each. A lookup hands
// out a lease (a shared_ptr) instead of a raw pointer, and removal waits until every lease taken
// before it has ended: a cudnnDestroy racing a call on the same handle never frees the state
// under that call. Lookups far outnumber changes, so they take the lock shared.

#include <future>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace ucudnn::preload {

template <typename Key, typename Value>
class HandleRegistry {
 public:
  using Lease = std::shared_ptr<Value>;

  /// Registers `value` (not owned) under `key`, replacing nothing: a key already present keeps
  /// its value and false is returned.
  bool add(Key key, Value* value) {
    auto released = std::make_shared<std::promise<void>>();
    Entry entry{Lease(value, [released](Value*) { released->set_value(); }), released->get_future()};
    std::unique_lock<std::shared_mutex> lock(mutex_);
    return entries_.emplace(key, std::move(entry)).second;
  }

  /// The value of `key` (kept alive while the lease lives), or null.
  Lease find(Key key) const {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : it->second.lease;
  }

  /// Unregisters `key` and returns its value once no lease of it is left, for the caller to
  /// destroy; null for a key never added. Later lookups of `key` find nothing.
  Value* remove(Key key) {
    Entry entry;
    {
      std::unique_lock<std::shared_mutex> lock(mutex_);
      auto it = entries_.find(key);
      if (it == entries_.end()) return nullptr;
      entry = std::move(it->second);
      entries_.erase(it);
    }
    Value* value = entry.lease.get();
    entry.lease.reset();
    entry.released.wait();  // the last lease's release runs the deleter
    return value;
  }

 private:
  struct Entry {
    Lease lease;
    std::future<void> released;
  };
  mutable std::shared_mutex mutex_;
  std::unordered_map<Key, Entry> entries_;
};

}  // namespace ucudnn::preload
