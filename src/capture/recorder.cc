// The record sinks behind Trace and StepTrace, and the per-thread slow path.
#include "capture/recorder.h"

#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "mlprof/mlprof.h"
#include "capture/op_recorder.h"
#include "capture/thread_name.h"
#include "capture/typed_records.h"
#include "format/annotation.h"

namespace mlprof::capture {

std::atomic<uint64_t> g_epoch{0};
std::atomic<Arena*> g_arena{nullptr};
// `{}`: zero-initialized, a constant initializer as the header's constinit asks (clang checks it).
thread_local ThreadState t_state __attribute__((tls_model("initial-exec"))){};

namespace {

void detach(ThreadState& t) noexcept {
  forget_open_ops();
  if (t.arena != nullptr) t.arena->detach();
  t.arena = nullptr;
  t.epoch = 0;
  t.chunk = nullptr;
  t.segment = nullptr;
  t.pos = t.limit = nullptr;
  t.dropping = false;
}

// A thread leaving lets go of its session's arena and its name; its chunks stay for the
// exporter, and the free space of its last one goes to the next thread that needs a chunk.
// If a later thread-exit destructor annotates again, attach() arms the hook again.
void on_thread_exit(void*) {
  ThreadState& t = t_state;
  if (t.arena != nullptr && t.chunk != nullptr) t.arena->give_back(t.chunk);
  detach(t);
  retire_thread_name(t_state.name);
  t_state.name = nullptr;
  t_state.exit_hook_armed = false;
}

// Numbers for threads, from 1 (thread ids alone are reused by the OS).
std::atomic<uint32_t> g_next_thread_serial{1};

pthread_key_t thread_exit_key() {
  static const pthread_key_t key = [] {
    pthread_key_t k;
    pthread_key_create(&k, on_thread_exit);
    return k;
  }();
  return key;
}

void arm_exit_hook(ThreadState& t) noexcept {
  if (!t.exit_hook_armed) {
    pthread_setspecific(thread_exit_key(), &t);
    t.exit_hook_armed = true;
  }
}

bool attach(ThreadState& t, uint64_t session) noexcept {
  Arena* arena = g_arena.load(std::memory_order_acquire);
  if (arena == nullptr || arena->session_id() != session || !arena->attach()) return false;
  if (arena->session_id() != session) {  // the block was recycled for a later session meanwhile
    arena->detach();
    return false;
  }
  if (t.tid == 0) t.tid = uint32_t(syscall(SYS_gettid));
  if (t.serial == 0) t.serial = g_next_thread_serial.fetch_add(1, std::memory_order_relaxed);
  arm_exit_hook(t);
  prctl(PR_GET_NAME, t.os_name);  // once per thread and session, off the hot path
  t.arena = arena;
  t.tick_base = arena->tick_base();
  t.epoch = session;
  return true;
}

void count_drop(ThreadState& t) noexcept {
  if (t.chunk != nullptr) {
    // Only the owner writes its chunk's counter: no read-modify-write needed.
    t.chunk->dropped.store(t.chunk->dropped.load(std::memory_order_relaxed) + 1,
                           std::memory_order_release);
  } else {
    t.arena->count_drop_without_chunk();
  }
}

enum class ChunkStart { kStarted, kTooFull, kSessionClosed };

// Begins this thread's segment in `chunk` (fresh, or given back by an exited thread, its
// free space starting at `published`): kTooFull when fewer than `bytes` would be left.
ChunkStart start_chunk(ThreadState& t, ChunkHeader* chunk, size_t bytes) noexcept {
  // Acquire, so that the check below comes after this read. A chunk taken by a late writer
  // of a session that closed meanwhile is left alone: the export reads it, and once the
  // session gives its pages back they read as zero, `published` too, so a segment begun
  // then would overwrite records the export read.
  const uint32_t used = std::max<uint32_t>(chunk->published.load(std::memory_order_acquire), sizeof(ChunkHeader));
  if (!t.arena->is_open()) return ChunkStart::kSessionClosed;
  if (kChunkBytes - used < sizeof(ThreadSegmentRecord) + bytes) return ChunkStart::kTooFull;
  char* const p = reinterpret_cast<char*>(chunk) + used;
  auto* segment = reinterpret_cast<ThreadSegmentRecord*>(p);
  segment->kind = kThreadSegment;
  segment->tid = t.tid;
  segment->thread_serial = t.serial;
  segment->thread_name.store(t.name, std::memory_order_relaxed);
  std::memcpy(segment->os_thread_name, t.os_name, sizeof segment->os_thread_name);
  t.chunk = chunk;
  t.segment = segment;
  t.op_time_high = kNoOpTimeHigh;  // op records of this segment are preceded by their own
  if (++t.segment_serial == 0) t.segment_serial = 1;  // and repeat only its own ops' inputs
  t.limit = reinterpret_cast<char*>(chunk) + kChunkBytes;
  publish(t, p + sizeof(ThreadSegmentRecord));
  return ChunkStart::kStarted;
}

}  // namespace

bool reserve_slow(ThreadState& t, size_t bytes) noexcept {
  const uint64_t session = g_epoch.load(std::memory_order_acquire);
  // A detached thread (epoch 0, no arena) with no session running also takes this branch:
  // e.g. a step that ends after stop() on a thread whose inner annotation already detached.
  if (t.epoch != session || t.arena == nullptr) {
    detach(t);
    if (session == 0 || !attach(t, session)) return false;  // no session: nothing to count
  }
  if (size_t(t.limit - t.pos) >= bytes) return true;
  if (!t.dropping) {
    ChunkHeader* chunk = t.arena->take_chunk();
    ChunkStart started = chunk != nullptr ? start_chunk(t, chunk, bytes) : ChunkStart::kTooFull;
    if (chunk != nullptr && started == ChunkStart::kTooFull) {
      // Given back with too little room for this record: leave it to others, take a fresh one.
      t.arena->give_back(chunk);
      chunk = t.arena->take_fresh_chunk();
      started = chunk != nullptr ? start_chunk(t, chunk, bytes) : ChunkStart::kTooFull;  // a record fits a chunk
    }
    if (started == ChunkStart::kStarted) return true;
    t.dropping = true;
  }
  count_drop(t);
  return false;
}

void reset_thread_after_fork() noexcept {
  // The child's only thread: its attachment, open ops and cached id belong to the parent.
  forget_open_ops();
  t_state.arena = nullptr;
  t_state.epoch = 0;
  t_state.chunk = nullptr;
  t_state.segment = nullptr;
  t_state.pos = t_state.limit = nullptr;
  t_state.dropping = false;
  t_state.tid = 0;
}

const char* set_name_of_this_thread(const char* name) noexcept {
  ThreadState& t = t_state;
  const char* previous = t.name;
  t.name = name;
  // Release: the exporter reads the name's bytes through this pointer.
  if (t.segment != nullptr) t.segment->thread_name.store(name, std::memory_order_release);
  arm_exit_hook(t);  // the name is given back when the thread exits
  return previous;
}

void record_literal_slow(const char* name, uint64_t start, uint64_t end) noexcept {
  ThreadState& t = t_state;
  if (!reserve_slow(t, sizeof(LongLiteralRecord))) return;
  // The tick base is the session's this thread may just have attached to.
  if (fits_literal_record(name, start - t.tick_base, end - start)) {
    *reinterpret_cast<LiteralRecord*>(t.pos) = pack_literal_record(name, start - t.tick_base, end - start);
    publish(t, t.pos + sizeof(LiteralRecord));
    return;
  }
  *reinterpret_cast<LongLiteralRecord*>(t.pos) = LongLiteralRecord{kLongLiteral, name, start, end};
  publish(t, t.pos + sizeof(LongLiteralRecord));
}

void record_step(const char* name, int64_t step, uint64_t start, uint64_t end) noexcept {
  ThreadState& t = t_state;
  if (!reserve(t, sizeof(StepRecord))) return;
  auto* r = reinterpret_cast<StepRecord*>(t.pos);
  *r = StepRecord{kStep, name, step, start, end};
  publish(t, t.pos + sizeof(StepRecord));
}

}  // namespace mlprof::capture

namespace mlprof {

using capture::CopiedNameRecord;
using capture::t_state;

namespace internal {

// Written so the fast path needs no stack frame: everything it touches is loaded first,
// and the slow path is a tail call.
void record_literal(const char* name, uint64_t start_ticks, uint64_t end_ticks) noexcept {
  capture::ThreadState& t = t_state;
  char* const p = t.pos;
  capture::ChunkHeader* const chunk = t.chunk;
  const uint64_t since_base = start_ticks - t.tick_base, duration = end_ticks - start_ticks;
  if (__builtin_expect(t.epoch == capture::g_epoch.load(std::memory_order_relaxed) &&
                           size_t(t.limit - p) >= sizeof(capture::LiteralRecord) &&
                           capture::fits_literal_record(name, since_base, duration), 1)) {
    *reinterpret_cast<capture::LiteralRecord*>(p) = capture::pack_literal_record(name, since_base, duration);
    char* const end = p + sizeof(capture::LiteralRecord);
    t.pos = end;
    chunk->published.store(uint32_t(end - reinterpret_cast<char*>(chunk)), std::memory_order_release);
    return;
  }
  capture::record_literal_slow(name, start_ticks, end_ticks);
}

void record_copy(std::string_view name, uint64_t start_ticks, uint64_t end_ticks) noexcept {
  capture::ThreadState& t = t_state;
  CopiedNameRecord* r = capture::stage_copied(t, name.size(), end_ticks, [&](char* out, size_t n) {
    std::memcpy(out, name.data(), n);
  });
  if (r == nullptr) return;
  r->start = start_ticks;
  capture::publish(t, t.pos + capture::copied_record_bytes(r->length));
}

void record_with_args(std::string_view name, const TraceArg* args, size_t num_args,
                      uint64_t start_ticks, uint64_t end_ticks) noexcept {
  capture::ThreadState& t = t_state;
  const size_t length = format::encode_into(nullptr, 0, name, args, num_args);
  CopiedNameRecord* r = capture::stage_copied(t, length, end_ticks, [&](char* out, size_t n) {
    format::encode_into(out, n, name, args, num_args);
  });
  if (r == nullptr) return;
  r->start = start_ticks;
  capture::publish(t, t.pos + capture::copied_record_bytes(r->length));
}

}  // namespace internal

}  // namespace mlprof
