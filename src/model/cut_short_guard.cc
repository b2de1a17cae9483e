#include "model/cut_short_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace mlprof::model {
namespace {

// The handler reads these lock-free: a slot is live while its begin is not zero.
struct Slot {
  std::atomic<uintptr_t> begin{0}, end{0};
  std::atomic<bool> cut{false};
};
constexpr int kSlots = 64;  // files mapped at once (the reader maps one a host)
Slot slots[kSlots];
struct sigaction previous {};
uintptr_t page_size = 4096;  // read when the handler is installed: sysconf is not for handlers

void on_sigbus(int signal, siginfo_t* info, void* context) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(info->si_addr);
  for (Slot& s : slots) {
    const uintptr_t begin = s.begin.load(std::memory_order_acquire);
    if (begin == 0 || at < begin || at >= s.end.load(std::memory_order_acquire)) continue;
    // The page past the file's end becomes a page of zeros, and the read that faulted goes on.
    void* const first = reinterpret_cast<void*>(at / page_size * page_size);
    if (::mmap(first, page_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) break;
    s.cut.store(true, std::memory_order_release);
    return;
  }
  // Not a guarded mapping: whatever handled the signal before does.
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(signal, info, context);
  } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
    previous.sa_handler(signal);
  } else {
    ::signal(SIGBUS, SIG_DFL);  // a read faults again, and the process ends as it would have
    if (info->si_code <= 0) ::raise(signal);  // sent, not a fault: sent again
  }
}

void install_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    page_size = uintptr_t(::sysconf(_SC_PAGESIZE));
    struct sigaction action {};
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, &action, &previous);
  });
}

}  // namespace

bool CutShortGuard::guard(const void* begin, size_t size) {
  release();
  install_handler();
  for (int i = 0; i < kSlots; ++i) {
    uintptr_t free = 0;
    Slot& s = slots[i];
    // Claimed with a marker first, so that the handler never sees a slot half written.
    if (!s.begin.compare_exchange_strong(free, 1, std::memory_order_acq_rel)) continue;
    s.cut.store(false, std::memory_order_relaxed);
    s.end.store(reinterpret_cast<uintptr_t>(begin) + size, std::memory_order_release);
    s.begin.store(reinterpret_cast<uintptr_t>(begin), std::memory_order_release);
    slot_ = i;
    return true;
  }
  return false;
}

void CutShortGuard::release() {
  if (slot_ < 0) return;
  slots[slot_].end.store(0, std::memory_order_release);
  slots[slot_].begin.store(0, std::memory_order_release);
  slot_ = -1;
}

bool CutShortGuard::cut_short() const {
  return slot_ >= 0 && slots[slot_].cut.load(std::memory_order_acquire);
}

}  // namespace mlprof::model
