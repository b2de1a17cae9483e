// The per-thread write side of capture: each thread owns the chunk it writes into, so the
// hot path takes no lock, allocates nothing and makes no system call.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "capture/arena.h"
#include "capture/record_format.h"
#include "mlprof/mlprof.h"  // MLPROF_API: the hot path is inlined into framework integrations

namespace mlprof::capture {

// The session threads write into: its id (0: none) and arena. Set by the session.
extern MLPROF_API std::atomic<uint64_t> g_epoch;
extern std::atomic<Arena*> g_arena;

// Trivial, so that the initial-exec thread_local below needs no guard or constructor call.
struct ThreadState {
  char* pos;              // where the next record goes
  char* limit;            // end of the current chunk (null: no chunk)
  ChunkHeader* chunk;
  ThreadSegmentRecord* segment;  // this thread's segment in `chunk`
  uint64_t epoch;         // the session this thread is attached to (0: none)
  Arena* arena;           // that session's arena, pinned while attached
  uint64_t tick_base;     // that arena's tick_base()
  uint64_t op_time_high;  // the high bits of the segment's latest OpTimeRecord (typed_records.h)
  // What recording reads is above: the first 64 bytes.
  const char* name;       // set_thread_name(), interned; null if never named
  uint32_t tid;           // cached OS thread id (0: not yet read)
  uint32_t serial;        // this thread's number in the process (0: not yet given)
  uint32_t segment_serial;  // bumped with each segment this thread begins (never 0 once it has one)
  bool dropping;          // the arena ran out: count instead of record until the session ends
  bool exit_hook_armed;
  char os_name[16];
};

// initial-exec: libmlprof is a shared object, and the default model would call
// __tls_get_addr on every access.
extern MLPROF_API constinit thread_local ThreadState t_state __attribute__((tls_model("initial-exec")));

// Makes room for `bytes` (<= a chunk's payload) in the current session's chunk: attaches to
// a new session, takes a new chunk. Returns false when the event cannot be recorded; if a
// session runs, the loss is counted as a drop.
MLPROF_API bool reserve_slow(ThreadState& t, size_t bytes) noexcept;

inline bool reserve(ThreadState& t, size_t bytes) noexcept {
  if (__builtin_expect(t.epoch == g_epoch.load(std::memory_order_relaxed) &&
                           size_t(t.limit - t.pos) >= bytes, 1)) {
    return true;
  }
  return reserve_slow(t, bytes);
}

// Makes the records written up to `end` visible to the exporter.
inline void publish(ThreadState& t, char* end) noexcept {
  t.pos = end;
  t.chunk->published.store(uint32_t(end - reinterpret_cast<char*>(t.chunk)), std::memory_order_release);
}

// Writes a copied-name record whose name is produced by `fill(buffer, length)`; returns the
// record, or null when it could not be recorded.
template <typename Fill>
inline CopiedNameRecord* stage_copied(ThreadState& t, size_t length, uint64_t end, Fill&& fill) noexcept {
  length = std::min(length, kMaxCopiedName);
  const size_t bytes = copied_record_bytes(length);
  if (!reserve(t, bytes)) return nullptr;
  auto* r = reinterpret_cast<CopiedNameRecord*>(t.pos);
  r->kind = kCopiedName;
  r->length = length;
  fill(reinterpret_cast<char*>(r + 1), length);
  r->end = end;
  r->start = 0;
  return r;
}

// Forgets the calling thread's attachment; used after fork() in the child.
void reset_thread_after_fork() noexcept;

// Names the calling thread's line from now on; returns the name it replaces, for
// retire_thread_name() (thread_name.h). `name` stays valid until retired.
const char* set_name_of_this_thread(const char* name) noexcept;

// record_literal() when the fast path cannot take the record.
__attribute__((noinline)) void record_literal_slow(const char* name, uint64_t start, uint64_t end) noexcept;

// Writes a StepRecord for the calling thread.
void record_step(const char* name, int64_t step, uint64_t start, uint64_t end) noexcept;

}  // namespace mlprof::capture
