#include "capture/arena.h"

#include <pthread.h>
#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <mutex>
#include <new>
#include <vector>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

namespace mlprof::capture {
namespace {

// How far ahead of the chunks taken pages are committed: what the writers take in
// kAheadNs at their recent pace, from 1 MiB to 64 MiB, so a slow writer holds little memory
// beyond its events and a fast one is not caught up with when this thread runs late.
constexpr uint32_t kMinAheadChunks = 16;
constexpr uint32_t kMaxAheadChunks = 1024;
constexpr double kAheadNs = 100e6;
// Committed in steps of 2 MiB, each made usable at once.
constexpr uint32_t kCommitStepChunks = 32;
// A chunk given back by an exiting thread is worth keeping when this much is left.
constexpr uint32_t kMinGiveBackBytes = 4096;

int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

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

Arena* Arena::create(uint64_t session_id, uint64_t max_bytes, void (*wake_committer)()) {
  const uint64_t chunks = std::min<uint64_t>(max_bytes / kChunkBytes, UINT32_MAX / 2);
  char* base = nullptr;
  if (chunks > 0) {
    void* p = mmap(nullptr, chunks * kChunkBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    base = static_cast<char*>(p);
    // Small pages whatever the system's setting: pages are committed ahead of the writers
    // anyway, and memory held beyond the events then grows by 4 KiB, not 2 MiB. Huge pages
    // committed by the session's thread were tried: the writer then ran 1.3-1.7x slower in
    // one process of two (the kernel compacting memory for them), with no fault of its own.
    madvise(base, chunks * kChunkBytes, MADV_NOHUGEPAGE);
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
  arena->reset(session_id, base, uint32_t(chunks), wake_committer);
  arena->commit_ahead();  // the first chunks, before any writer can ask
  return arena;
}

// A thread that read the block's address for an earlier session may call attach() at any
// time: it either sees the block closed, or open with the new session's id and fields.
void Arena::reset(uint64_t session_id, char* base, uint32_t num_chunks, void (*wake_committer)()) noexcept {
  session_id_.store(session_id, std::memory_order_relaxed);
  base_ = base;
  num_chunks_ = num_chunks;
  wake_committer_ = wake_committer;
  next_chunk_.store(0, std::memory_order_relaxed);
  given_back_.store(0, std::memory_order_relaxed);
  dropped_without_chunk_.store(0, std::memory_order_relaxed);
  committed_.store(0, std::memory_order_relaxed);
  ahead_ = kMinAheadChunks;
  low_water_.store(kMinAheadChunks / 2, std::memory_order_relaxed);
  last_commit_ns_ = 0;
  last_taken_ = 0;
  commit_wanted_.store(false, std::memory_order_relaxed);
  commit_failed_.store(false, std::memory_order_relaxed);
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
  // A chunk an exited thread gave back: its pages are there already.
  uint64_t head = given_back_.load(std::memory_order_acquire);
  while (uint32_t(head) != 0) {
    ChunkHeader* c = chunk(uint32_t(head) - 1);
    const uint64_t next = ((head >> 32) + 1) << 32 | c->next_free.load(std::memory_order_relaxed);
    if (given_back_.compare_exchange_weak(head, next, std::memory_order_acquire, std::memory_order_acquire)) return c;
  }
  return take_fresh_chunk();
}

ChunkHeader* Arena::take_fresh_chunk() noexcept {
  const uint32_t index = next_chunk_.fetch_add(1, std::memory_order_relaxed);
  // A thread that gets null stops asking for this session, so the counter cannot wrap.
  if (index >= num_chunks_) return nullptr;
  const uint32_t committed = committed_.load(std::memory_order_acquire);
  if (index >= committed && !commit_failed_.load(std::memory_order_relaxed)) {
    // The committer is behind: one call for the chunk's pages rather than a fault per page.
    commit(index, index + 1);
  }
  if (wake_committer_ != nullptr && index + low_water_.load(std::memory_order_relaxed) >= committed &&
      !commit_wanted_.exchange(true, std::memory_order_relaxed)) {
    wake_committer_();
  }
  return chunk(index);
}

void Arena::give_back(ChunkHeader* c) noexcept {
  if (kChunkBytes - c->published.load(std::memory_order_relaxed) < kMinGiveBackBytes) return;
  const uint32_t index = uint32_t((reinterpret_cast<char*>(c) - base_) / kChunkBytes);
  uint64_t head = given_back_.load(std::memory_order_relaxed);
  do {
    c->next_free.store(uint32_t(head), std::memory_order_relaxed);
  } while (!given_back_.compare_exchange_weak(head, (head >> 32) << 32 | (index + 1), std::memory_order_release,
                                              std::memory_order_relaxed));
}

bool Arena::commit(uint32_t from, uint32_t to) noexcept {
  if (madvise(base_ + uint64_t(from) * kChunkBytes, uint64_t(to - from) * kChunkBytes, MADV_POPULATE_WRITE) == 0) {
    return true;
  }
  commit_failed_.store(true, std::memory_order_relaxed);  // an older kernel, or memory pressure: writers fault as needed
  return false;
}

void Arena::commit_ahead() noexcept {
  if (base_ == nullptr || commit_failed_.load(std::memory_order_relaxed)) return;
  commit_wanted_.store(false, std::memory_order_relaxed);
  const int64_t now = monotonic_ns();
  const uint32_t taken = chunks_taken();
  if (last_commit_ns_ != 0 && now > last_commit_ns_) {
    const double pace = double(taken - last_taken_) / double(now - last_commit_ns_) * kAheadNs;
    // Down by half a call at most: a pause in the writing does not undo the pace.
    ahead_ = std::clamp(std::max(uint32_t(std::min(pace, double(kMaxAheadChunks))), ahead_ / 2), kMinAheadChunks,
                        kMaxAheadChunks);
    low_water_.store(ahead_ / 2, std::memory_order_relaxed);
  }
  last_commit_ns_ = now;
  last_taken_ = taken;
  // Chunks already taken are their writers' (committed by them when this thread was late):
  // committing them again would only keep this thread behind the writers.
  uint32_t from = std::max(committed_.load(std::memory_order_relaxed), taken);
  const uint32_t to = std::min(num_chunks_, taken + ahead_);
  while (from < to) {
    const uint32_t step = std::min(to, from + kCommitStepChunks);
    if (!commit(from, step)) return;
    committed_.store(step, std::memory_order_release);
    from = step;
  }
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
  const uint32_t used = std::max(chunks_taken(), committed_.load(std::memory_order_relaxed));
  if (base_ != nullptr) madvise(base_, uint64_t(used) * kChunkBytes, MADV_DONTNEED);
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
