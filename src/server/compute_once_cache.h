// A small cache of computed values (loaded profiles, tool results) keyed by a string. A value
// is computed once even when several requests ask for it at the same time: the first caller
// computes, the others wait for its result. An entry whose `version` (the profile files' sizes
// and times) changed is computed again. The least recently used entries go first when there
// are more than `max_entries`, or when the values' total size passes `max_bytes`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <limits>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace mlprof::server {

template <class Value>
class ComputeOnceCache {
 public:
  using Pointer = std::shared_ptr<const Value>;
  using SizeOf = std::function<size_t(const Value&)>;

  explicit ComputeOnceCache(size_t max_entries, size_t max_bytes = std::numeric_limits<size_t>::max(),
                            SizeOf size_of = nullptr)
      : max_entries_(max_entries == 0 ? 1 : max_entries), max_bytes_(max_bytes), size_of_(std::move(size_of)) {}

  // The value for `key` at `version`, from the cache or from `compute`. An exception thrown
  // by `compute` reaches every caller waiting for it, and nothing is cached.
  Pointer get(const std::string& key, const std::string& version, const std::function<Pointer()>& compute) {
    std::promise<Pointer> promise;
    std::shared_future<Pointer> future;
    bool computes_here = false;
    uint64_t generation = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = entries_.find(key);
      if (it != entries_.end() && it->second.version == version) {
        recent_.splice(recent_.begin(), recent_, it->second.recency);
        future = it->second.value;
      } else {
        if (it != entries_.end()) erase_locked(it);
        future = promise.get_future().share();
        recent_.push_front(key);
        generation = ++generations_;
        entries_.emplace(key, Entry{version, future, recent_.begin(), generation, 0});
        evict_locked(key);
        computes_here = true;
      }
    }
    if (computes_here) {
      // Computed outside the lock: other keys stay available meanwhile.
      Pointer value;
      try {
        value = compute();
      } catch (...) {
        promise.set_exception(std::current_exception());
        forget(key, generation);
        throw;
      }
      promise.set_value(value);
      if (size_of_ && value) account(key, generation, size_of_(*value));
    }
    return future.get();
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
  }

  size_t bytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return bytes_;
  }

 private:
  struct Entry {
    std::string version;
    std::shared_future<Pointer> value;
    std::list<std::string>::iterator recency;
    uint64_t generation;  // tells a failed computation's entry from a newer one
    size_t bytes;         // known once computed
  };
  using Map = std::unordered_map<std::string, Entry>;

  // Drops a failed computation unless a newer one already replaced it.
  void forget(const std::string& key, uint64_t generation) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it != entries_.end() && it->second.generation == generation) erase_locked(it);
  }

  void account(const std::string& key, uint64_t generation, size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end() || it->second.generation != generation) return;  // already evicted
    it->second.bytes = bytes;
    bytes_ += bytes;
    evict_locked(key);
  }

  // Evicts from the least recently used end, never `keep` (the entry just added).
  void evict_locked(const std::string& keep) {
    while (entries_.size() > max_entries_ || (bytes_ > max_bytes_ && entries_.size() > 1)) {
      auto victim = std::prev(recent_.end());
      if (*victim == keep) {
        if (victim == recent_.begin()) return;
        --victim;
      }
      erase_locked(entries_.find(*victim));
    }
  }

  void erase_locked(typename Map::iterator it) {
    bytes_ -= it->second.bytes;
    recent_.erase(it->second.recency);
    entries_.erase(it);
  }

  const size_t max_entries_;
  const size_t max_bytes_;
  const SizeOf size_of_;
  mutable std::mutex mutex_;
  Map entries_;
  std::list<std::string> recent_;  // most recently used first
  uint64_t generations_ = 0;
  size_t bytes_ = 0;
};

}  // namespace mlprof::server
