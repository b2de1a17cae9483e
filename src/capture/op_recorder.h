// The capture side of framework integrations (src/capture/torch/): ops, memory events and
// inferred steps go into the calling thread's buffer as typed records (typed_records.h).
// Exported from libmlprof for libmlprof_torch; not part of the public SDK.
//
// Each thread keeps a stack of its open ops, so that a memory event knows the op that asked
// for the memory (tf_op) and an op's end lands in the record its begin staged.
#pragma once

#include <cstddef>
#include <cstdint>

#include "capture/recorder.h"
#include "capture/typed_records.h"
#include "mlprof/mlprof.h"

namespace mlprof::capture {

// One open op: its staged record, null when not recorded. A thread's frames hold records of
// the session it is attached to only: it forgets them when it detaches (forget_open_ops), so
// an op that ends after its session never writes into another session's memory.
struct OpFrame {
  OpRecord* record;
};

constexpr int kMaxOpDepth = 256;

struct OpStack {
  int depth = 0;
  OpFrame frames[kMaxOpDepth];
};

// A pointer only: the stack itself is allocated once per thread, so that libmlprof's static
// TLS stays small. initial-exec: no call to find it, from libmlprof or an integration.
extern MLPROF_API constinit thread_local OpStack* t_op_stack __attribute__((tls_model("initial-exec")));
// Makes the calling thread's stack; null when out of memory.
MLPROF_API OpStack* new_op_stack() noexcept;
// The calling thread leaves its session: its open ops' records are no longer its to finish.
void forget_open_ops() noexcept;

}  // namespace mlprof::capture

namespace mlprof::internal {

// Writes an op's input description (input_description.h) into out[0, capacity) and returns
// the bytes used; sets *truncated when inputs were left out for lack of room.
using InputEncoder = size_t (*)(const void* context, char* out, size_t capacity, bool* truncated) noexcept;

// The calling thread's op stack, made on first use; null when out of memory.
inline capture::OpStack* this_thread_op_stack() noexcept {
  capture::OpStack* s = capture::t_op_stack;
  return __builtin_expect(s != nullptr, 1) ? s : capture::new_op_stack();
}

// op_begin() for an op with a forward thread, inputs or a sequence number beyond 32 bits:
// the frame is the one op_begin pushed.
MLPROF_API void op_begin_extended(capture::OpFrame& frame, const char* name, int64_t sequence_nr,
                                  uint32_t fwd_thread, uint16_t flags, InputEncoder encode, const void* context,
                                  size_t max_input_bytes) noexcept;

// Begins an op on thread stack `s` (this_thread_op_stack()). It is recorded when `level`
// records; `name` must live for the process (interned). When `encode` is given, it writes
// the op's inputs (at most `max_input_bytes`) straight into the record. Every op_begin must
// be matched by an op_end on the same thread. Inline: this is the hot path of op tracing.
inline void op_begin(capture::OpStack& s, const char* name, int level, int64_t sequence_nr, uint32_t fwd_thread,
                     uint16_t flags, InputEncoder encode = nullptr, const void* context = nullptr,
                     size_t max_input_bytes = 0) noexcept {
  const int depth = s.depth++;
  if (__builtin_expect(depth >= capture::kMaxOpDepth, 0)) return;
  capture::OpFrame& frame = s.frames[depth];
  frame.record = nullptr;
  if (!tracing(level)) return;
  const uint64_t sequence_plus_1 = uint64_t(sequence_nr + 1);
  if (encode != nullptr || fwd_thread != 0 || (sequence_plus_1 >> 32) != 0) {
    op_begin_extended(frame, name, sequence_nr, fwd_thread, flags, encode, context, max_input_bytes);
    return;
  }
  capture::ThreadState& t = capture::t_state;
  if (!capture::reserve(t, sizeof(capture::OpRecord))) return;
  auto* r = reinterpret_cast<capture::OpRecord*>(t.pos);
  r->head = capture::op_head(flags, name);
  r->end = 0;
  r->sequence_low = uint32_t(sequence_plus_1);
  r->start = now_ticks();
  capture::publish(t, t.pos + sizeof(capture::OpRecord));
  frame.record = r;
}

// op_begin() of an op recorded at the level in force, with no forward thread or inputs, whose
// record head (op_head) is known: what most ops are. The rest, and a full chunk, go through
// op_begin_plain_slow(). Inline, and no more than that: this is the floor of op tracing.
MLPROF_API void op_begin_plain_slow(capture::OpFrame& frame, uint64_t head, int64_t sequence_nr) noexcept;
inline void op_begin_plain(capture::OpStack& s, uint64_t head, int64_t sequence_nr) noexcept {
  const int depth = s.depth++;
  if (__builtin_expect(depth >= capture::kMaxOpDepth, 0)) return;
  capture::OpFrame& frame = s.frames[depth];
  capture::ThreadState& t = capture::t_state;
  char* const p = t.pos;
  const uint64_t sequence_plus_1 = uint64_t(sequence_nr + 1);
  if (__builtin_expect((sequence_plus_1 >> 32) == 0 && t.epoch == capture::g_epoch.load(std::memory_order_relaxed) &&
                           size_t(t.limit - p) >= sizeof(capture::OpRecord), 1)) {
    auto* r = reinterpret_cast<capture::OpRecord*>(p);
    r->head = head;
    r->end = 0;
    r->sequence_low = uint32_t(sequence_plus_1);
    r->start = now_ticks();
    capture::publish(t, p + sizeof(capture::OpRecord));
    frame.record = r;
    return;
  }
  op_begin_plain_slow(frame, head, sequence_nr);
}

// An OpEndRecord for an op of kLongOp ticks or more.
MLPROF_API void op_end_long(capture::OpRecord* record, uint64_t end) noexcept;

// Ends the calling thread's innermost op; returns the depth left (0: its top-level op ended).
inline int op_end() noexcept {
  capture::OpStack* s = capture::t_op_stack;
  if (__builtin_expect(s == nullptr || s->depth == 0, 0)) return 0;
  const int depth = --s->depth;
  if (__builtin_expect(depth >= capture::kMaxOpDepth, 0)) return depth;
  const capture::OpFrame& frame = s->frames[depth];
  // The record's arena stays mapped while this thread is attached to its session, and the
  // thread forgets its records when it detaches.
  if (frame.record != nullptr) {
    const uint64_t end = now_ticks();
    const uint32_t word = capture::op_end_word(end - frame.record->start);
    __atomic_store_n(&frame.record->end, word, __ATOMIC_RELEASE);
    if (__builtin_expect(word == capture::kLongOp, 0)) op_end_long(frame.record, end);
  }
  return depth;
}

// The depth of the calling thread's op stack (0: no op open).
MLPROF_API int op_depth() noexcept;

// An allocator's report of one event (LibTorch's reportMemoryUsage); see MemoryRecord.
struct AllocatorReport {
  const void* address = nullptr;
  int64_t bytes = 0;               // > 0 allocation, < 0 free
  int64_t bytes_allocated = -1;
  int64_t bytes_reserved = -1;
  int16_t device_type = -1;
  int16_t device_index = -1;
};

// Records a memory event on the calling thread at host_tracer_level 3, tied to its open op
// and the current step.
MLPROF_API void record_memory_event(const AllocatorReport& report) noexcept;

// True while a session records memory events (host_tracer_level 3).
inline bool recording_memory() { return tracing(kVerbose); }

// Steps found by an integration when the program marks none. Begins step `step`: may switch
// a step-range session on (like StepTrace); returns the level now in force.
MLPROF_API int inferred_step_begin(int64_t step) noexcept;
// Records step `step` [start, end) on the calling thread, saying how it was found (a
// literal), and ends a step-range session after its last step.
MLPROF_API void inferred_step_end(int64_t step, uint64_t start, uint64_t end, const char* source) noexcept;
// True once the program has marked a step itself (StepTrace) in the running session: an
// integration then leaves steps alone.
MLPROF_API bool program_marks_steps() noexcept;

// Records the framework's id of the calling thread for this session (see LogicalThreadRecord).
MLPROF_API void record_logical_thread(uint64_t logical_id) noexcept;

// Session start and stop, for integrations that switch their hooks on and off. Called
// with the options in force (start) from the thread that starts the session, and (stop)
// before the session is written: from the thread that calls mlprof::stop(), or the
// session's own when it ends by itself. Adding a listener while a session runs calls its
// start.
struct SessionListener {
  void (*on_start)(const ProfilerOptions& options);
  void (*on_stop)();
};
MLPROF_API void add_session_listener(const SessionListener& listener);

// Stops and writes the running session, as the exit handler that start() registers does. For
// an integration whose framework makes statics on first use after that handler was
// registered: exit handlers and static destructors run in reverse order, so the integration
// registers this one again after them, and the session is written while they still exist.
MLPROF_API void stop_session_at_exit();

}  // namespace mlprof::internal
