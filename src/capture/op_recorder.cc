// The hot path of framework integrations: ops staged into the thread's buffer when they
// begin and completed when they end, memory events tied to the open op, inferred steps.
#include "capture/op_recorder.h"

#include <pthread.h>

#include <cstring>
#include <algorithm>
#include <new>

#include "capture/memory_record_writer.h"
#include "capture/recorder.h"
#include "capture/session.h"
#include "capture/session_events.h"

namespace mlprof::capture {

thread_local OpStack* t_op_stack __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

void free_stack(void* stack) {
  delete static_cast<OpStack*>(stack);
  t_op_stack = nullptr;
}

pthread_key_t stack_key() {
  static const pthread_key_t key = [] {
    pthread_key_t k;
    pthread_key_create(&k, free_stack);
    return k;
  }();
  return key;
}

}  // namespace

OpStack* new_op_stack() noexcept {
  auto* s = new (std::nothrow) OpStack;
  if (s == nullptr) return nullptr;
  pthread_setspecific(stack_key(), s);
  t_op_stack = s;
  return s;
}

void forget_open_ops() noexcept {
  OpStack* s = t_op_stack;
  if (s == nullptr) return;
  for (int d = std::min(s->depth, kMaxOpDepth) - 1; d >= 0; --d) s->frames[d].record = nullptr;
}

OpContext open_op_context() noexcept {
  OpContext context;
  const OpStack* s = t_op_stack;
  if (s == nullptr || s->depth == 0) return context;
  for (int d = std::min(s->depth, kMaxOpDepth) - 1; d >= 0; --d) {
    const OpFrame& f = s->frames[d];
    if (f.record == nullptr) break;
    if (context.op == nullptr) context.op = f.record;
    if ((op_flags(*f.record) & kOpFactory) == 0) {
      context.owner = f.record;
      break;
    }
  }
  return context;
}

}  // namespace mlprof::capture

namespace mlprof::internal {

using capture::OpRecord;
using capture::t_state;

namespace {

// Writes an OpTimeRecord at `p` when the high bits of `since_base` are new to the segment;
// returns where the op record goes.
char* time_record_if_new(capture::ThreadState& t, char* p, uint64_t since_base) noexcept {
  const uint64_t high = since_base >> 32;
  if (high == t.op_time_high) return p;
  *reinterpret_cast<uint64_t*>(p) = capture::op_time_record(uint32_t(high));
  t.op_time_high = high;
  return p + sizeof(uint64_t);
}

}  // namespace

char* op_time_record_before(capture::ThreadState& t, char* p, uint64_t since_base, size_t bytes) noexcept {
  if ((since_base >> 32) == t.op_time_high) return p;
  std::memmove(p + sizeof(uint64_t), p, bytes);
  return time_record_if_new(t, p, since_base);
}

void op_begin_extended(capture::OpFrame& frame, OpNameRef name, int64_t sequence_nr, uint32_t fwd_thread,
                       uint16_t flags, InputEncoder encode, const void* context, size_t max_input_bytes) noexcept {
  capture::ThreadState& t = t_state;
  const uint64_t sequence_plus_1 = uint64_t(sequence_nr + 1);
  if (fwd_thread != 0 || (sequence_plus_1 >> 32) != 0 || name.id == 0) flags |= capture::kOpExtended;
  if (name.id == 0) flags |= capture::kOpNamePointer;
  if (encode != nullptr) flags |= capture::kOpInputs;
  const size_t fixed = sizeof(OpRecord) + capture::op_fixed_tail_bytes(flags) +
                       (encode != nullptr ? sizeof(uint16_t) : 0);
  max_input_bytes = encode != nullptr ? std::min<size_t>(max_input_bytes, kMaxOpInputBytes) : 0;
  // Room for an OpTimeRecord too: whether it is needed is known once the clock is read,
  // after the inputs are written (their encoding is not the op's time).
  if (!capture::reserve(t, sizeof(uint64_t) + fixed + max_input_bytes + 7)) return;
  char* p = t.pos;
  size_t input_bytes = 0;
  if (encode != nullptr) {
    bool truncated = false;
    input_bytes = std::min(encode(context, p + fixed, max_input_bytes, &truncated), max_input_bytes);
    if (truncated) flags |= capture::kOpInputsTruncated;
  }
  const uint64_t start = now_ticks();
  const uint64_t since_base = start - t.tick_base;
  if (char* const q = time_record_if_new(t, p, since_base); q != p) {
    std::memmove(q + fixed, p + fixed, input_bytes);
    p = q;
  }
  auto* r = reinterpret_cast<OpRecord*>(p);
  *r = OpRecord{uint32_t(since_base), capture::op_head(flags, name.id), 0, uint32_t(sequence_plus_1)};
  char* tail = p + sizeof(OpRecord);
  if ((flags & capture::kOpExtended) != 0) {
    *reinterpret_cast<capture::OpExtension*>(tail) = capture::OpExtension{fwd_thread, uint32_t(sequence_plus_1 >> 32)};
    tail += sizeof(capture::OpExtension);
  }
  if ((flags & capture::kOpNamePointer) != 0) {
    std::memcpy(tail, &name.text, sizeof name.text);
    tail += sizeof name.text;
  }
  if (encode != nullptr) {
    const auto length = uint16_t(input_bytes);
    std::memcpy(tail, &length, sizeof length);
    // The exporter now sees these as the name's latest inputs: the repeat cache no longer holds them.
    if (capture::OpStack* s = capture::t_op_stack; s != nullptr && name.id != 0)
      s->last_inputs[name.id % capture::kInputsSlots].segment_serial = 0;
  }
  capture::publish(t, p + capture::round_up8(fixed + input_bytes));
  frame.record = r;
  frame.start = start;
}

void op_begin_plain_slow(capture::OpFrame& frame, uint32_t head, int64_t sequence_nr) noexcept {
  const OpRecord as_record{0, head, 0, 0};
  const uint16_t id = capture::op_name_id(as_record);
  op_begin_extended(frame, {capture::op_name_of_id(id), id}, sequence_nr, 0, capture::op_flags(as_record), nullptr,
                    nullptr, 0);
}

void op_end_long(OpRecord* record, uint64_t end) noexcept {
  capture::ThreadState& t = t_state;
  if (!capture::reserve(t, sizeof(capture::OpEndRecord))) return;
  *reinterpret_cast<capture::OpEndRecord*>(t.pos) = capture::OpEndRecord{capture::kOpEndRecord, record, end};
  capture::publish(t, t.pos + sizeof(capture::OpEndRecord));
}

int op_depth() noexcept {
  const capture::OpStack* s = capture::t_op_stack;
  return s == nullptr ? 0 : s->depth;
}

void record_memory_event(const AllocatorReport& report) noexcept {
  if (!recording_memory()) return;
  capture::write_memory_record(report, nullptr);
}

int inferred_step_begin(int64_t step) noexcept {
  capture::g_current_step.store(step, std::memory_order_relaxed);
  return capture::begin_step_in_range(step);
}

void inferred_step_end(int64_t step, uint64_t start, uint64_t end, const char* source) noexcept {
  capture::ThreadState& t = t_state;
  if (capture::reserve(t, sizeof(capture::InferredStepRecord))) {
    auto* r = reinterpret_cast<capture::InferredStepRecord*>(t.pos);
    *r = capture::InferredStepRecord{capture::kInferredStepRecord, start, end, step, source};
    capture::publish(t, t.pos + sizeof *r);
  }
  capture::end_step_range_if_last(step);
}

void record_logical_thread(uint64_t logical_id) noexcept {
  capture::ThreadState& t = t_state;
  if (!capture::reserve(t, sizeof(capture::LogicalThreadRecord))) return;
  auto* r = reinterpret_cast<capture::LogicalThreadRecord*>(t.pos);
  *r = capture::LogicalThreadRecord{capture::kLogicalThreadRecord, logical_id};
  capture::publish(t, t.pos + sizeof *r);
}

}  // namespace mlprof::internal
