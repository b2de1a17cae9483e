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
namespace {

constexpr int kMaxOpDepth = 256;

// One open op: its staged record (null when not recorded) and the session it belongs to.
struct OpFrame {
  OpRecord* record;
  uint64_t epoch;
};

struct OpStack {
  int depth = 0;
  OpFrame frames[kMaxOpDepth];
};

// A pointer only: the stack itself is allocated once per thread, so that libmlprof's static
// TLS stays small.
thread_local OpStack* t_ops __attribute__((tls_model("initial-exec"))) = nullptr;

void free_stack(void* stack) {
  delete static_cast<OpStack*>(stack);
  t_ops = nullptr;
}

pthread_key_t stack_key() {
  static const pthread_key_t key = [] {
    pthread_key_t k;
    pthread_key_create(&k, free_stack);
    return k;
  }();
  return key;
}

__attribute__((noinline)) OpStack* new_stack() noexcept {
  auto* s = new (std::nothrow) OpStack;
  if (s == nullptr) return nullptr;
  pthread_setspecific(stack_key(), s);
  t_ops = s;
  return s;
}

inline OpStack* this_thread_stack() noexcept {
  OpStack* s = t_ops;
  return __builtin_expect(s != nullptr, 1) ? s : new_stack();
}

}  // namespace

OpContext open_op_context(uint64_t epoch) noexcept {
  OpContext context;
  const OpStack* s = t_ops;
  if (s == nullptr || s->depth == 0) return context;
  for (int d = std::min(s->depth, kMaxOpDepth) - 1; d >= 0; --d) {
    const OpFrame& f = s->frames[d];
    if (f.record == nullptr || f.epoch != epoch) break;
    if (context.op == nullptr) context.op = f.record;
    if ((f.record->flags & kOpFactory) == 0) {
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

int op_begin(const char* name, int level, int64_t sequence_nr, uint32_t fwd_thread, uint16_t flags,
             InputEncoder encode, const void* context, size_t max_input_bytes) noexcept {
  capture::OpStack* s = capture::this_thread_stack();
  if (s == nullptr) return 0;
  const int depth = s->depth++;
  if (depth >= capture::kMaxOpDepth) return depth;
  capture::OpFrame& frame = s->frames[depth];
  frame.record = nullptr;
  if (!tracing(level)) return depth;

  capture::ThreadState& t = t_state;
  if (encode == nullptr) max_input_bytes = 0;
  max_input_bytes = std::min<size_t>(max_input_bytes, UINT16_MAX & ~size_t{7});
  if (!capture::reserve(t, sizeof(OpRecord) + max_input_bytes)) return depth;
  auto* r = reinterpret_cast<OpRecord*>(t.pos);
  size_t input_bytes = 0;
  if (encode != nullptr) {
    bool truncated = false;
    input_bytes = std::min(encode(context, reinterpret_cast<char*>(r + 1), max_input_bytes, &truncated), max_input_bytes);
    if (truncated) flags |= capture::kOpInputsTruncated;
  }
  r->kind = capture::kOpRecord;
  r->name = name;
  r->end = 0;
  r->sequence_nr = sequence_nr;
  r->fwd_thread = fwd_thread;
  r->flags = flags;
  r->input_bytes = uint16_t(input_bytes);
  r->start = now_ticks();
  capture::publish(t, t.pos + sizeof(OpRecord) + capture::round_up8(input_bytes));
  frame.record = r;
  frame.epoch = t.epoch;
  return depth;
}

int op_end() noexcept {
  capture::OpStack* s = capture::t_ops;
  if (s == nullptr || s->depth == 0) return 0;
  const int depth = --s->depth;
  if (depth >= capture::kMaxOpDepth) return depth;
  const capture::OpFrame& frame = s->frames[depth];
  // The record's arena stays mapped while this thread is still attached to its session.
  if (frame.record != nullptr && t_state.epoch == frame.epoch) {
    __atomic_store_n(&frame.record->end, now_ticks(), __ATOMIC_RELEASE);
  }
  return depth;
}

int op_depth() noexcept {
  const capture::OpStack* s = capture::t_ops;
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
