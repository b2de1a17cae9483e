// Work items made on several threads and taken in their order on the caller's thread as they
// come: how hosts of a run and lines of an XSpace are read at once yet joined as one thread
// would join them.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace mlprof::model {

// Runs make(i) for i in [0, n) on `jobs` threads and take(i, result) on this thread in the
// order of i; at most `window` items (2 × jobs when 0) are started and not yet taken, so
// memory stays bounded. `waiting`,
// when set, is called every 100 ms while this thread waits. take() returning false stops: no
// item is started after it, and every thread is joined before this returns (as it is when
// anything throws).
template <typename Result>
bool run_ordered(size_t n, unsigned jobs, const std::function<Result(size_t)>& make,
                 const std::function<bool(size_t, Result&)>& take, const std::function<void()>& waiting = {},
                 size_t window = 0) {
  struct Shared {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::optional<Result>> results;
    size_t next = 0, taken = 0;
    bool stop = false;
  } s;
  s.results.resize(n);
  if (window == 0) window = size_t(jobs) * 2;
  auto work = [&] {
    for (;;) {
      size_t i;
      {
        std::unique_lock lock(s.mutex);
        s.changed.wait(lock, [&] { return s.stop || s.next >= n || s.next < s.taken + window; });
        if (s.stop || s.next >= n) return;
        i = s.next++;
      }
      Result r = make(i);
      std::lock_guard lock(s.mutex);
      s.results[i].emplace(std::move(r));
      s.changed.notify_all();
    }
  };
  struct Joiner {
    Shared& s;
    std::vector<std::thread> threads;
    ~Joiner() {
      {
        std::lock_guard lock(s.mutex);
        s.stop = true;
      }
      s.changed.notify_all();
      for (auto& t : threads) t.join();
    }
  } joiner{s, {}};
  for (unsigned j = 0; j < jobs; ++j) joiner.threads.emplace_back(work);
  for (size_t i = 0; i < n; ++i) {
    std::optional<Result> r;
    {
      std::unique_lock lock(s.mutex);
      while (!s.results[i]) {
        if (waiting) {
          lock.unlock();
          waiting();
          lock.lock();
        }
        s.changed.wait_for(lock, std::chrono::milliseconds(100), [&] { return s.results[i].has_value(); });
      }
      r = std::move(s.results[i]);
      s.results[i].reset();
    }
    const bool go_on = take(i, *r);
    {
      std::lock_guard lock(s.mutex);
      s.taken = i + 1;
    }
    s.changed.notify_all();
    if (!go_on) return false;
  }
  return true;
}

}  // namespace mlprof::model
