// A small cache of computed values (loaded profiles, tool results) keyed by a string. A value
// is computed once even when several requests ask for it at the same time: the first caller
// computes, the others wait for its result. An entry whose `version` (the profile files' sizes
// and times) changed is computed again. The least recently used entries go first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
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

  explicit ComputeOnceCache(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

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
        entries_.emplace(key, Entry{version, future, recent_.begin(), generation});
        while (entries_.size() > capacity_) erase_locked(entries_.find(recent_.back()));
        computes_here = true;
      }
    }
    if (computes_here) {
      // Computed outside the lock: other keys stay available meanwhile.
      try {
        promise.set_value(compute());
      } catch (...) {
        promise.set_exception(std::current_exception());
        forget(key, generation);
      }
    }
    return future.get();
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
  }

 private:
  struct Entry {
    std::string version;
    std::shared_future<Pointer> value;
    std::list<std::string>::iterator recency;
    uint64_t generation;  // tells a failed computation's entry from a newer one
  };
  using Map = std::unordered_map<std::string, Entry>;

  // Drops a failed computation unless a newer one already replaced it.
  void forget(const std::string& key, uint64_t generation) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it != entries_.end() && it->second.generation == generation) erase_locked(it);
  }

  void erase_locked(typename Map::iterator it) {
    recent_.erase(it->second.recency);
    entries_.erase(it);
  }

  const size_t capacity_;
  mutable std::mutex mutex_;
  Map entries_;
  std::list<std::string> recent_;  // most recently used first
  uint64_t generations_ = 0;
};

}  // namespace mlprof::server
