// The capture side of framework integrations (src/capture/torch/): ops, memory events and
// inferred steps go into the calling thread's buffer as typed records (typed_records.h).
// Exported from libmlprof for libmlprof_torch; not part of the public SDK.
//
// Each thread keeps a stack of its open ops, so that a memory event knows the op that asked
// for the memory (tf_op) and an op's end lands in the record its begin staged.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "capture/recorder.h"
#include "capture/typed_records.h"
#include "mlprof/mlprof.h"

namespace mlprof::capture {

// One open op: its staged record, null when not recorded. A thread's frames hold records of
// the session it is attached to only: it forgets them when it detaches (forget_open_ops), so
// an op that ends after its session never writes into another session's memory.
struct OpFrame {
  OpRecord* record;
  uint64_t start;  // ticks: the record keeps only their low bits
};

constexpr int kMaxOpDepth = 256;

// The latest input description written in full (kOpInputs) for a name id in the thread's
// current segment, as the exporter will see it: an op whose inputs are the same writes a
// kOpRecordSameInputs record instead (typed_records.h). Direct-mapped by name id; a slot of
// another segment (serial) or another id holds nothing.
// The bytes come first and are compared as one 32-byte block (same_input_bytes).
struct InputsSlot {
  char bytes[32];  // past `length`: whatever followed them in the record
  uint32_t segment_serial;
  uint16_t name_id;
  uint8_t length;
};
static_assert(sizeof(InputsSlot) == 40);
constexpr size_t kInputsSlots = 64;

// Whether a[0, n) == b[0, n), for n <= 32 and both readable for 32 bytes: two vector compares
// and a mask instead of a call to memcmp.
inline bool same_input_bytes(const char* a, const char* b, size_t n) noexcept {
#if defined(__SSE2__)
  const __m128i low = _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a)),
                                     _mm_loadu_si128(reinterpret_cast<const __m128i*>(b)));
  const __m128i high = _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + 16)),
                                      _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16)));
  const uint32_t equal = uint32_t(_mm_movemask_epi8(low)) | uint32_t(_mm_movemask_epi8(high)) << 16;
  const uint32_t wanted = n >= 32 ? ~uint32_t{0} : (uint32_t{1} << n) - 1;
  return (equal & wanted) == wanted;
#else
  return __builtin_memcmp(a, b, n) == 0;
#endif
}

struct OpStack {
  int depth = 0;
  OpFrame frames[kMaxOpDepth];
  InputsSlot last_inputs[kInputsSlots] = {};
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

// The most input description an op record holds: a small part of a chunk (inputs past it are
// left out and the record says so).
constexpr size_t kMaxOpInputBytes = 1024;

// An op's name as records carry it: its id (op_name_ids.h; 0 when it has none) and its text,
// which must live for the process.
struct OpNameRef {
  const char* text;
  uint16_t id;
};

// The frame for the op beginning on `s`, or null past kMaxOpDepth (the op is counted, not
// recorded, so that its op_end finds the depth it left).
inline capture::OpFrame* push_op_frame(capture::OpStack& s) noexcept {
  const int depth = s.depth++;
  if (__builtin_expect(depth >= capture::kMaxOpDepth, 0)) return nullptr;
  capture::OpFrame* frame = &s.frames[depth];
  frame->record = nullptr;
  return frame;
}

// op_begin_plain() when the fast path cannot take the op: a sequence number beyond 32 bits, a
// full chunk, another session, or new high bits of the time (an OpTimeRecord first).
MLPROF_API void op_begin_plain_slow(capture::OpFrame& frame, uint32_t head, int64_t sequence_nr) noexcept;

// op_begin() of an op recorded at the level in force, with no forward thread or inputs, whose
// record head (op_head(), with a name id) is known, when nothing is out of the ordinary: a
// free frame, a sequence number within 32 bits, room in this session's chunk and the time's
// high bits of the segment. False, with nothing done, otherwise. Inline and with no call:
// this is the floor of op tracing.
inline bool op_begin_plain_fast(capture::OpStack& s, uint32_t head, int64_t sequence_nr) noexcept {
  const int depth = s.depth;
  capture::ThreadState& t = capture::t_state;
  char* const p = t.pos;
  const uint64_t start = now_ticks();
  const uint64_t since_base = start - t.tick_base;
  const uint64_t sequence_plus_1 = uint64_t(sequence_nr + 1);
  if (__builtin_expect(((sequence_plus_1 >> 32) | ((since_base >> 32) ^ t.op_time_high)) != 0 ||
                           depth >= capture::kMaxOpDepth ||
                           t.epoch != capture::g_epoch.load(std::memory_order_relaxed) ||
                           size_t(t.limit - p) < sizeof(capture::OpRecord), 0)) {
    return false;
  }
  s.depth = depth + 1;
  // Two stores: start_low and head, then end (0: running) and sequence_low.
  auto* words = reinterpret_cast<uint64_t*>(p);
  words[0] = uint64_t(head) << 32 | uint32_t(since_base);
  words[1] = sequence_plus_1 << 32;
  capture::publish(t, p + sizeof(capture::OpRecord));
  capture::OpFrame& frame = s.frames[depth];
  frame.record = reinterpret_cast<capture::OpRecord*>(p);
  frame.start = start;
  return true;
}

// op_begin_plain_fast(), or else the same op through op_begin_plain_slow().
inline void op_begin_plain(capture::OpStack& s, uint32_t head, int64_t sequence_nr) noexcept {
  if (__builtin_expect(op_begin_plain_fast(s, head, sequence_nr), 1)) return;
  if (capture::OpFrame* frame = push_op_frame(s); frame != nullptr) op_begin_plain_slow(*frame, head, sequence_nr);
}

// Puts an OpTimeRecord for `since_base` at `p`, moving the `bytes` staged there (a record
// being written, its inputs already in place) after it; returns where they now begin.
MLPROF_API char* op_time_record_before(capture::ThreadState& t, char* p, uint64_t since_base, size_t bytes) noexcept;

// op_begin() of an op recorded at the level in force with its inputs, and with no forward
// thread or name without an id: `encode(out, capacity, &truncated)` writes the inputs and
// returns their size. False, with nothing done, for a sequence number beyond 32 bits (then
// op_begin_extended). Inline: what most ops are at host_tracer_level 3.
template <typename Encode>
__attribute__((always_inline)) inline bool op_begin_with_inputs(capture::OpStack& s, uint32_t head,
                                                                int64_t sequence_nr, Encode&& encode) noexcept {
  const uint64_t sequence_plus_1 = uint64_t(sequence_nr + 1);
  if (__builtin_expect((sequence_plus_1 >> 32) != 0, 0)) return false;
  capture::OpFrame* const frame = push_op_frame(s);
  if (__builtin_expect(frame == nullptr, 0)) return true;
  capture::ThreadState& t = capture::t_state;
  constexpr size_t kFixed = sizeof(capture::OpRecord) + sizeof(uint16_t);
  // An OpTimeRecord may come first, and the record is padded to 8.
  if (!capture::reserve(t, sizeof(uint64_t) + kFixed + kMaxOpInputBytes + 7)) return true;
  char* p = t.pos;
  bool truncated = false;
  const size_t input_bytes = encode(p + kFixed, kMaxOpInputBytes, &truncated);
  // The same inputs as this name's latest in the segment: a 16-byte record says so.
  capture::InputsSlot& last = s.last_inputs[uint16_t(head) % capture::kInputsSlots];
  // The record has room for kMaxOpInputBytes, so 32 bytes past p + kFixed can be read.
  static_assert(kMaxOpInputBytes >= sizeof last.bytes);
  const bool same = last.segment_serial == t.segment_serial && last.name_id == uint16_t(head) &&
                    last.length == input_bytes && !truncated &&
                    capture::same_input_bytes(last.bytes, p + kFixed, input_bytes);
  const size_t bytes = same ? sizeof(capture::OpRecord) : kFixed + input_bytes;
  if (!same) {
    if (input_bytes <= sizeof last.bytes && !truncated) {
      last.segment_serial = t.segment_serial;
      last.name_id = uint16_t(head);
      last.length = uint8_t(input_bytes);
      __builtin_memcpy(last.bytes, p + kFixed, sizeof last.bytes);
    } else {
      last.segment_serial = 0;
    }
  }
  const uint64_t start = now_ticks();
  const uint64_t since_base = start - t.tick_base;
  if (__builtin_expect((since_base >> 32) != t.op_time_high, 0)) p = op_time_record_before(t, p, since_base, bytes);
  auto* words = reinterpret_cast<uint64_t*>(p);
  words[1] = sequence_plus_1 << 32;
  if (same) {
    words[0] = uint64_t(capture::same_inputs_head(head)) << 32 | uint32_t(since_base);
  } else {
    const uint32_t flags = capture::kOpInputs | (truncated ? capture::kOpInputsTruncated : 0);
    words[0] = uint64_t(head | flags << 16) << 32 | uint32_t(since_base);
    const auto length = uint16_t(input_bytes);
    __builtin_memcpy(p + sizeof(capture::OpRecord), &length, sizeof length);
  }
  capture::publish(t, p + capture::round_up8(bytes));
  frame->record = reinterpret_cast<capture::OpRecord*>(p);
  frame->start = start;
  return true;
}

// op_begin() for an op with a forward thread, inputs, a sequence number beyond 32 bits or a
// name without an id: `frame` is the one op_begin pushed.
MLPROF_API void op_begin_extended(capture::OpFrame& frame, OpNameRef name, int64_t sequence_nr, uint32_t fwd_thread,
                                  uint16_t flags, InputEncoder encode, const void* context,
                                  size_t max_input_bytes) noexcept;

// Begins an op on thread stack `s` (this_thread_op_stack()). It is recorded when `level`
// records. When `encode` is given, it writes the op's inputs (at most `max_input_bytes`)
// straight into the record. Every op_begin must be matched by an op_end on the same thread.
inline void op_begin(capture::OpStack& s, OpNameRef name, int level, int64_t sequence_nr, uint32_t fwd_thread,
                     uint16_t flags, InputEncoder encode = nullptr, const void* context = nullptr,
                     size_t max_input_bytes = 0) noexcept {
  if (tracing(level) && encode == nullptr && fwd_thread == 0 && name.id != 0) {
    op_begin_plain(s, capture::op_head(flags, name.id), sequence_nr);
    return;
  }
  capture::OpFrame* frame = push_op_frame(s);
  if (frame != nullptr && tracing(level))
    op_begin_extended(*frame, name, sequence_nr, fwd_thread, flags, encode, context, max_input_bytes);
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
    const uint32_t word = capture::op_end_word(end - frame.start);
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
