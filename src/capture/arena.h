// One session's capture memory: max_buffer_bytes of address space, handed out to threads in
// fixed-size chunks. Writers never wait for a page: the session's thread commits pages ahead
// of the chunks taken (commit_ahead), as far ahead as the writers' recent pace asks; a writer
// that still outruns it commits its new chunk with one call rather than a fault per page.
// A thread that exits gives its chunk's free space back (give_back), so threads that come
// and go share chunks instead of taking one each.
//
// Lifetime: a thread attaches (pins the arena) before taking chunks and detaches when it
// notices the session is gone or exits; the mapping is unmapped only once the session is
// closed and no thread is attached, so a late writer never touches unmapped memory. The
// control block itself is never freed, since a racing thread may always read it: once its
// mapping is gone it is kept for the next session's arena (so blocks do not pile up).
#pragma once

#include <atomic>
#include <cstdint>

#include "capture/record_format.h"

namespace mlprof::capture {

class Arena {
 public:
  // Null when the address space cannot be reserved. `wake_committer` is called (from a
  // writer's slow path, once per commit_ahead) when writers near the committed end.
  static Arena* create(uint64_t session_id, uint64_t max_bytes, void (*wake_committer)() = nullptr);

  uint64_t session_id() const { return session_id_.load(std::memory_order_relaxed); }
  // The tick literal records count their start from (record_format.h): the session's start,
  // set before the arena is published to writers.
  uint64_t tick_base() const { return tick_base_.load(std::memory_order_relaxed); }
  void set_tick_base(uint64_t ticks) { tick_base_.store(ticks, std::memory_order_relaxed); }
  uint64_t capacity_bytes() const { return uint64_t(num_chunks_) * kChunkBytes; }

  // Writers. attach() fails once the arena is closed.
  bool attach() noexcept;
  void detach() noexcept;
  // Whether the session still records (seq_cst, as close() stores it).
  bool is_open() const noexcept { return open_.load(std::memory_order_seq_cst); }
  // A chunk for the calling thread, or null when the arena is full: one given back by a
  // thread that exited (its `published` says where the free space starts), else a fresh one.
  ChunkHeader* take_chunk() noexcept;
  // A fresh chunk only, or null when the arena is full.
  ChunkHeader* take_fresh_chunk() noexcept;
  // An exiting thread's chunk, for the next thread that needs one (when enough is left).
  void give_back(ChunkHeader* chunk) noexcept;
  // Drops of a thread that never got a chunk.
  void count_drop_without_chunk() noexcept { dropped_without_chunk_.fetch_add(1, std::memory_order_relaxed); }

  // Commits the pages of the chunks to be taken next, further ahead while writers keep
  // outrunning it. Call from one thread, before close().
  void commit_ahead() noexcept;

  // The exporter, after close(): chunks [0, chunks_taken()) may hold records.
  void close() noexcept;
  uint32_t chunks_taken() const noexcept;
  ChunkHeader* chunk(uint32_t index) const noexcept {
    return reinterpret_cast<ChunkHeader*>(base_ + uint64_t(index) * kChunkBytes);
  }
  uint64_t dropped_without_chunk() const noexcept { return dropped_without_chunk_.load(std::memory_order_acquire); }

  // Gives the memory back after export: unmaps it when no thread is attached, otherwise
  // frees its pages (a late write then lands in a fresh zero page) and unmaps it later.
  void release() noexcept;
  // Unmaps released arenas that no thread is attached to any more.
  static void unmap_idle_arenas() noexcept;

  // In a forked child, whose only thread writes to no session: the parent's capture memory
  // is of no use there, and the lock of released arenas may have been held by a thread the
  // child does not have.
  void unmap_in_forked_child() noexcept;
  static void reset_lock_in_forked_child() noexcept;

 private:
  Arena() = default;
  // Sets up a new or recycled block for a session; opens it last.
  void reset(uint64_t session_id, char* base, uint32_t num_chunks, void (*wake_committer)()) noexcept;
  bool try_unmap() noexcept;
  // Commits chunks [from, to); false when the kernel refused.
  bool commit(uint32_t from, uint32_t to) noexcept;

  // Atomic: a block is recycled while a thread that read g_arena long ago may compare it.
  std::atomic<uint64_t> session_id_{0};
  std::atomic<uint64_t> tick_base_{0};
  char* base_ = nullptr;
  uint32_t num_chunks_ = 0;
  std::atomic<uint32_t> next_chunk_{0};
  // Chunks given back by exited threads: a stack of indices linked through
  // ChunkHeader::next_free, as (pop count << 32 | index + 1) so that a pop never takes a
  // stale link (ABA); 0 in the low half: empty.
  std::atomic<uint64_t> given_back_{0};
  std::atomic<bool> open_{false};
  std::atomic<uint32_t> attached_{0};
  std::atomic<uint64_t> dropped_without_chunk_{0};
  void (*wake_committer_)() = nullptr;
  // Chunks [0, committed_) have their pages; writers wake the committer when fewer than
  // low_water_ chunks are left ahead of them. Only the committer changes ahead_ and the pace
  // it measures (chunks taken at its last call, and when).
  std::atomic<uint32_t> committed_{0};
  std::atomic<uint32_t> low_water_{0};
  uint32_t ahead_ = 0;
  int64_t last_commit_ns_ = 0;
  uint32_t last_taken_ = 0;
  std::atomic<bool> commit_wanted_{false};
  std::atomic<bool> commit_failed_{false};
  bool unmapped_ = false;
};

}  // namespace mlprof::capture
