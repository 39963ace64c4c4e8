#pragma once
// A cache of built things keyed by a kernel and the few settings it was built under: at most
// `capacity` entries, the least recently used evicted first, and one build per entry: a thread
// asking for an entry that another thread is building waits for that build instead of repeating
// it (oneDNN's primitive cache works the same way). A lookup takes the key by reference and walks
// the key's few settings, so the hot path (one lookup per convolution call) copies no key.
//
// The value is stored as built, failures included: PlanBuilder caches a failed plan so that a
// convolution it cannot plan is not measured again on every call.

#include <condition_variable>
#include <cstddef>
#include <iterator>
#include <list>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ucudnn {

template <typename Key, typename Hash, typename Settings, typename Value>
class BoundedCache {
 public:
  explicit BoundedCache(std::size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}
  BoundedCache(const BoundedCache&) = delete;
  BoundedCache& operator=(const BoundedCache&) = delete;

  /// The value of (key, settings) if it is built; it becomes the most recently used. Never builds,
  /// never waits.
  std::optional<Value> find(const Key& key, const Settings& settings) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto entry = find_locked(key, settings);
    if (!entry || !(*entry)->value) return std::nullopt;
    touch_locked(*entry);
    return (*entry)->value;
  }

  /// The value of (key, settings): cached, or built by `build()` (called without the lock held, by
  /// one thread only; the others asking meanwhile wait for its result). Where build throws, the
  /// entry is dropped, the waiting threads build it themselves, and the exception propagates.
  template <typename Build>
  Value get_or_build(const Key& key, const Settings& settings, Build&& build) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      const auto entry = find_locked(key, settings);
      if (!entry) break;
      if ((*entry)->value) {
        touch_locked(*entry);
        return *(*entry)->value;
      }
      ++waiting_;
      built_.wait(lock);  // another thread builds it; look again once it is done (or dropped)
      --waiting_;
    }
    entries_.push_front(Entry{key, settings, std::nullopt});
    const Iterator mine = entries_.begin();
    index_[key].push_back(mine);
    lock.unlock();
    std::optional<Value> value;
    try {
      value.emplace(build());
    } catch (...) {
      lock.lock();
      erase_locked(mine);
      built_.notify_all();
      throw;
    }
    lock.lock();
    mine->value = value;
    evict_locked();
    built_.notify_all();
    return *value;
  }

  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
  }
  std::size_t capacity() const { return capacity_; }
  /// Threads waiting now for another thread's build (what a test can wait for instead of sleeping).
  std::size_t waiting() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return waiting_;
  }

 private:
  struct Entry {
    Key key;
    Settings settings;
    std::optional<Value> value;  ///< empty while it is being built
  };
  using Iterator = typename std::list<Entry>::iterator;

  std::optional<Iterator> find_locked(const Key& key, const Settings& settings) {
    const auto at = index_.find(key);
    if (at == index_.end()) return std::nullopt;
    for (const Iterator& entry : at->second) {
      if (entry->settings == settings) return entry;
    }
    return std::nullopt;
  }
  void touch_locked(Iterator entry) { entries_.splice(entries_.begin(), entries_, entry); }
  void erase_locked(Iterator entry) {
    const auto at = index_.find(entry->key);
    if (at != index_.end()) {
      auto& list = at->second;
      for (auto it = list.begin(); it != list.end(); ++it) {
        if (*it == entry) {
          list.erase(it);
          break;
        }
      }
      if (list.empty()) index_.erase(at);
    }
    entries_.erase(entry);
  }
  /// Drops the least recently used built entries beyond the capacity (an entry being built stays:
  /// its builder and waiters hold it).
  void evict_locked() {
    auto entry = entries_.end();
    while (entries_.size() > capacity_ && entry != entries_.begin()) {
      --entry;
      if (!entry->value) continue;
      const Iterator victim = entry;
      ++entry;  // stays valid: list iterators survive erasing another element
      erase_locked(victim);
    }
  }

  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable built_;
  std::list<Entry> entries_;  ///< most recently used first
  std::unordered_map<Key, std::vector<Iterator>, Hash> index_;
  std::size_t waiting_ = 0;  ///< threads in built_.wait
};

}  // namespace ucudnn
