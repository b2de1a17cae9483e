// One session's capture memory: max_buffer_bytes of address space, handed out to threads in
// fixed-size chunks with an atomic bump index. Pages are committed ahead of the chunks taken
// by the session's thread (populate_ahead), so writers rarely take a page fault themselves.
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
  // Null when the address space cannot be reserved. `wake_populater` is called (from a
  // writer's slow path, at most once per populate_ahead) when writers near the committed end.
  static Arena* create(uint64_t session_id, uint64_t max_bytes, void (*wake_populater)() = nullptr);

  uint64_t session_id() const { return session_id_.load(std::memory_order_relaxed); }
  uint64_t capacity_bytes() const { return uint64_t(num_chunks_) * kChunkBytes; }

  // Writers. attach() fails once the arena is closed.
  bool attach() noexcept;
  void detach() noexcept;
  // A fresh chunk for the calling thread, or null when the arena is full.
  ChunkHeader* take_chunk() noexcept;
  // Drops of a thread that never got a chunk.
  void count_drop_without_chunk() noexcept { dropped_without_chunk_.fetch_add(1, std::memory_order_relaxed); }

  // Commits the pages of the next chunks to be taken (MADV_POPULATE_WRITE: the kernel
  // zeroes them; pages already present are left alone). Call from one thread, before close().
  void populate_ahead() noexcept;

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
  void reset(uint64_t session_id, char* base, uint32_t num_chunks, void (*wake_populater)()) noexcept;
  bool try_unmap() noexcept;

  // Atomic: a block is recycled while a thread that read g_arena long ago may compare it.
  std::atomic<uint64_t> session_id_{0};
  char* base_ = nullptr;
  uint32_t num_chunks_ = 0;
  std::atomic<uint32_t> next_chunk_{0};
  std::atomic<bool> open_{false};
  std::atomic<uint32_t> attached_{0};
  std::atomic<uint64_t> dropped_without_chunk_{0};
  void (*wake_populater_)() = nullptr;
  std::atomic<uint32_t> populated_chunks_{0};
  std::atomic<bool> populate_wanted_{false};
  std::atomic<bool> populate_failed_{false};
  bool unmapped_ = false;
};

}  // namespace mlprof::capture
