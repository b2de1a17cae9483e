// Wakes a sleeping thread without a lock: the sleeper takes a ticket, checks its work, and
// sleeps only while no notify() came after the ticket (a futex on the counter), so a wakeup
// between its check and its sleep is never lost. Writers call notify() from their slow path:
// no lock that a fork() could leave held.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>

namespace mlprof::capture {

class Wakeup {
 public:
  uint32_t ticket() const noexcept { return count_.load(std::memory_order_acquire); }

  void notify() noexcept {
    count_.fetch_add(1, std::memory_order_release);
    syscall(SYS_futex, word(), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
  }

  // Returns at a notify() after `ticket` was taken, or after `timeout` (or spuriously).
  void wait(uint32_t ticket, std::chrono::nanoseconds timeout) const noexcept {
    if (timeout.count() <= 0) return;
    const timespec ts{time_t(timeout.count() / 1'000'000'000), long(timeout.count() % 1'000'000'000)};
    syscall(SYS_futex, word(), FUTEX_WAIT_PRIVATE, ticket, &ts, nullptr, 0);
  }

 private:
  uint32_t* word() const noexcept { return reinterpret_cast<uint32_t*>(const_cast<std::atomic<uint32_t>*>(&count_)); }

  std::atomic<uint32_t> count_{0};
};
static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));

}  // namespace mlprof::capture
