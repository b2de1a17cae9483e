#include "capture/arena.h"

#include <pthread.h>
#include <sys/mman.h>

#include <algorithm>
#include <mutex>
#include <new>
#include <vector>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

namespace mlprof::capture {
namespace {

// How far ahead of the chunks taken pages are committed, and how close writers may come to
// the committed end before they wake the populater: 16 MiB and 8 MiB.
constexpr uint32_t kPopulateAheadChunks = 256;
constexpr uint32_t kPopulateLowWaterChunks = 128;

// Arenas released while threads were still attached, waiting to be unmapped; and control
// blocks whose mapping is gone, for the next arenas.
struct ReleasedArenas {
  std::mutex mu;
  std::vector<Arena*> arenas;
  std::vector<Arena*> spare;
};

ReleasedArenas& released_arenas() {
  static ReleasedArenas* released = new ReleasedArenas;  // immortal: used from atexit
  return *released;
}

// fork() while another thread updates the lists would leave the child half-updated ones:
// the forking thread waits for the lock, and the child makes it anew (reset_lock_in_forked_child).
__attribute__((constructor)) void hold_released_arenas_across_fork() {
  pthread_atfork([] { released_arenas().mu.lock(); }, [] { released_arenas().mu.unlock(); }, nullptr);
}

}  // namespace

Arena* Arena::create(uint64_t session_id, uint64_t max_bytes, void (*wake_populater)()) {
  const uint64_t chunks = std::min<uint64_t>(max_bytes / kChunkBytes, UINT32_MAX / 2);
  char* base = nullptr;
  if (chunks > 0) {
    void* p = mmap(nullptr, chunks * kChunkBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    base = static_cast<char*>(p);
    // Huge pages: 512 times fewer faults and TLB entries for a buffer written end to end.
    madvise(base, chunks * kChunkBytes, MADV_HUGEPAGE);
  }
  Arena* arena = nullptr;
  {
    ReleasedArenas& released = released_arenas();
    std::lock_guard<std::mutex> lock(released.mu);
    if (!released.spare.empty()) {
      arena = released.spare.back();
      released.spare.pop_back();
    }
  }
  if (arena == nullptr) arena = new (std::nothrow) Arena;
  if (arena == nullptr) {
    if (base != nullptr) munmap(base, chunks * kChunkBytes);
    return nullptr;
  }
  arena->reset(session_id, base, uint32_t(chunks), wake_populater);
  return arena;
}

// A thread that read the block's address for an earlier session may call attach() at any
// time: it either sees the block closed, or open with the new session's id and fields.
void Arena::reset(uint64_t session_id, char* base, uint32_t num_chunks, void (*wake_populater)()) noexcept {
  session_id_.store(session_id, std::memory_order_relaxed);
  base_ = base;
  num_chunks_ = num_chunks;
  wake_populater_ = wake_populater;
  next_chunk_.store(0, std::memory_order_relaxed);
  dropped_without_chunk_.store(0, std::memory_order_relaxed);
  populated_chunks_.store(0, std::memory_order_relaxed);
  populate_wanted_.store(false, std::memory_order_relaxed);
  populate_failed_.store(false, std::memory_order_relaxed);
  unmapped_ = false;
  open_.store(true, std::memory_order_seq_cst);
}

// attach/close form a Dekker pair (both seq_cst): either attach sees the arena closed, or
// the unmapping side sees the attachment.
bool Arena::attach() noexcept {
  attached_.fetch_add(1, std::memory_order_seq_cst);
  if (!open_.load(std::memory_order_seq_cst)) {
    attached_.fetch_sub(1, std::memory_order_release);
    return false;
  }
  return true;
}

void Arena::detach() noexcept { attached_.fetch_sub(1, std::memory_order_release); }

ChunkHeader* Arena::take_chunk() noexcept {
  const uint32_t index = next_chunk_.fetch_add(1, std::memory_order_relaxed);
  // A thread that gets null stops asking for this session, so the counter cannot wrap.
  if (index >= num_chunks_) return nullptr;
  if (wake_populater_ != nullptr && !populate_failed_.load(std::memory_order_relaxed) &&
      index + kPopulateLowWaterChunks >= populated_chunks_.load(std::memory_order_relaxed) &&
      !populate_wanted_.exchange(true, std::memory_order_relaxed)) {
    wake_populater_();
  }
  return chunk(index);
}

void Arena::populate_ahead() noexcept {
  populate_wanted_.store(false, std::memory_order_relaxed);
  if (populate_failed_.load(std::memory_order_relaxed) || base_ == nullptr) return;
  const uint32_t from = populated_chunks_.load(std::memory_order_relaxed);
  const uint32_t to = std::min(num_chunks_, chunks_taken() + kPopulateAheadChunks);
  if (to <= from) return;
  if (madvise(base_ + uint64_t(from) * kChunkBytes, uint64_t(to - from) * kChunkBytes,
              MADV_POPULATE_WRITE) != 0) {
    populate_failed_.store(true, std::memory_order_relaxed);  // an older kernel, or memory pressure: writers fault as needed
    return;
  }
  populated_chunks_.store(to, std::memory_order_relaxed);
}

void Arena::close() noexcept { open_.store(false, std::memory_order_seq_cst); }

uint32_t Arena::chunks_taken() const noexcept {
  return std::min(next_chunk_.load(std::memory_order_acquire), num_chunks_);
}

bool Arena::try_unmap() noexcept {
  if (unmapped_) return true;
  if (attached_.load(std::memory_order_seq_cst) != 0) return false;
  if (base_ != nullptr) munmap(base_, capacity_bytes());
  unmapped_ = true;
  return true;
}

void Arena::release() noexcept {
  ReleasedArenas& released = released_arenas();
  std::lock_guard<std::mutex> lock(released.mu);
  if (try_unmap()) {
    released.spare.push_back(this);
    return;
  }
  if (base_ != nullptr) madvise(base_, uint64_t(chunks_taken()) * kChunkBytes, MADV_DONTNEED);
  released.arenas.push_back(this);
}

void Arena::unmap_idle_arenas() noexcept {
  ReleasedArenas& released = released_arenas();
  std::lock_guard<std::mutex> lock(released.mu);
  std::erase_if(released.arenas, [&](Arena* a) {
    if (!a->try_unmap()) return false;
    released.spare.push_back(a);
    return true;
  });
}

void Arena::unmap_in_forked_child() noexcept {
  if (!unmapped_ && base_ != nullptr) munmap(base_, capacity_bytes());
  unmapped_ = true;
}

void Arena::reset_lock_in_forked_child() noexcept { new (&released_arenas().mu) std::mutex; }

}  // namespace mlprof::capture
