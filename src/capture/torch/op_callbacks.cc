#include "capture/torch/op_callbacks.h"

#include <ATen/record_function.h>
#include <c10/core/GradMode.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

#include "capture/op_recorder.h"
#include "capture/torch/input_encoding.h"
#include "capture/torch/memory_reporter.h"
#include "capture/torch/op_names.h"
#include "capture/torch/record_function_name.h"
#include "capture/torch/step_detector.h"

namespace mlprof::libtorch {
namespace {

// Bumped per enable: what a thread did once per session is redone in the next.
std::atomic<uint32_t> g_session{1};

// Per thread, touched only by it. Trivial and initial-exec: no guard and no call to find it.
struct ThreadOps {
  uint32_t session;
  bool ran_forward;  // ran a top-level op that was not backward
  bool named;
  bool reporter;     // the memory reporter is installed
  uint64_t reporter_checked;  // ticks of the steady path's latest check for it
};
thread_local ThreadOps t_ops __attribute__((tls_model("initial-exec")));

bool grad_mode_enabled() { return c10::GradMode::is_enabled(); }

// Once per thread and session: its framework id (for backward ops' forward thread), and a
// name for a thread whose first work is a backward pass (an autograd device thread).
__attribute__((noinline)) void first_op_of_session(ThreadOps& t, const at::RecordFunction& fn, bool backward,
                                                   int trace_level) {
  t.session = g_session.load(std::memory_order_relaxed);
  internal::record_logical_thread(fn.threadId());
  if (!t.named && !t.ran_forward && backward && gettid() != getpid()) {
    set_thread_name("autograd thread");
    t.named = true;
  }
  if (trace_level >= kVerbose) t.reporter = ensure_memory_reporter();
}

// What a thread's top-level op (one no other op on the thread encloses) does beyond being
// recorded, in full: the thread's first op of a session, steps, the memory reporter, a
// DataLoader's batches.
__attribute__((noinline)) void top_level_op_start_slow(const at::RecordFunction& fn, const OpName* name,
                                                       bool backward, int trace_level) {
  ThreadOps& t = t_ops;
  if (t.session != g_session.load(std::memory_order_relaxed)) {
    first_op_of_session(t, fn, backward, trace_level);
  } else if (trace_level >= kVerbose) {
    t.reporter = ensure_memory_reporter();
  }
  t.ran_forward |= !backward;
  on_top_level_op(backward, grad_mode_enabled);
  // torch.utils.data.DataLoader's iterator: one step per batch, as for a traced C++ loader.
  if (__builtin_expect((name->flags & kInputRequest) != 0, 0)) on_input_request(now_ticks());
}

// The same for most top-level ops, inline: on a thread that has run its first op of the
// session, and forward ops before, steps are left to the detector's inline check.
// The session's id changes with each session start, after the steps' generation: a thread
// that passes has seen the current one.
inline void on_top_level_op_start(const at::RecordFunction& fn, const OpName* name, bool backward, int trace_level) {
  ThreadOps& t = t_ops;
  if (__builtin_expect(t.session != g_session.load(std::memory_order_relaxed) || (!backward && !t.ran_forward) ||
                           (name->flags & kInputRequest) != 0,
                       0)) {
    top_level_op_start_slow(fn, name, backward, trace_level);
    return;
  }
  if (trace_level >= kVerbose) t.reporter = ensure_memory_reporter();
  on_top_level_op(backward, grad_mode_enabled);
}

// An op that is not a dispatched forward op recorded at level 2 or 3: backward ops, user
// scopes, autograd entries, names without an id, and every op at level 1.
__attribute__((noinline)) void begin_other_op(capture::OpStack& stack, const at::RecordFunction& fn,
                                              const OpName* name, at::RecordScope scope, bool backward,
                                              int trace_level) {
  uint16_t flags = backward ? capture::kOpBackward : 0;
  if (name->flags & kFactoryOp) flags |= capture::kOpFactory;
  int level = kInfo;
  if (__builtin_expect(scope == at::RecordScope::USER_SCOPE, 0)) {
    flags |= capture::kOpUserScope;
    level = kCritical;
  }
  uint32_t fwd_thread = backward ? uint32_t(fn.forwardThreadId()) : 0;
  // A backward op of a forward pass on its own thread (CPU autograd) says so with a flag: no
  // extension to write.
  if (fwd_thread != 0 && fwd_thread == uint32_t(fn.threadId())) {
    flags |= capture::kOpForwardThreadIsOwn;
    fwd_thread = 0;
  }
  const internal::OpNameRef ref{name->text, name->id};
  if (trace_level >= kVerbose && fn.needsInputs()) {
    const OpInputs inputs{&fn, name};
    internal::op_begin(stack, ref, level, fn.seqNr(), fwd_thread, flags, encode_op_inputs, &inputs,
                       internal::kMaxOpInputBytes);
  } else {
    internal::op_begin(stack, ref, level, fn.seqNr(), fwd_thread, flags);
  }
}

// A dispatched forward op at level 3: with its inputs. False when op_begin_with_inputs cannot
// take it.
inline bool begin_with_inputs(capture::OpStack& stack, const at::RecordFunction& fn, const OpName& name) {
  return internal::op_begin_with_inputs(stack, name.record_head, fn.seqNr(),
                                        [&](char* out, size_t capacity, bool* truncated) {
                                          return encode_inputs(fn, name, out, capacity, truncated);
                                        });
}

// Every op, at any level: what on_op_start leaves to it.
__attribute__((noinline)) void start_op(const at::RecordFunction& fn) {
  capture::OpStack* stack = internal::this_thread_op_stack();
  if (__builtin_expect(stack == nullptr, 0)) return;  // out of memory: op_end sees depth 0
  const int trace_level = internal::g_trace_level.load(std::memory_order_relaxed);
  const at::RecordScope scope = fn.scope();
  const OpName* name = op_name_of(fn);
  const bool backward = scope == at::RecordScope::BACKWARD_FUNCTION || (name->flags & kAutogradEntry) != 0;
  if (stack->depth == 0) on_top_level_op_start(fn, name, backward, trace_level);
  if (__builtin_expect(scope == at::RecordScope::FUNCTION && !backward && (name->flags & kNoNameId) == 0, 1)) {
    if (trace_level == kInfo) {
      internal::op_begin_plain(*stack, name->record_head, fn.seqNr());
      return;
    }
    if (trace_level == kVerbose && fn.needsInputs() && begin_with_inputs(*stack, fn, *name)) return;
  }
  begin_other_op(*stack, fn, name, scope, backward, trace_level);
}

// Whether a forward top-level op would change nothing of its thread's state (see
// on_top_level_op_start): its session's first op has run, it ran forward before, and no
// backward pass waits for a step to begin (step_detector.h). The session's id changes with
// each session start, after the steps' generation: a thread that passes has seen the
// current one, so the detector's generation needs no check here.
inline bool forward_top_level_op_is_steady() {
  const ThreadOps& t = t_ops;
  return t.session == g_session.load(std::memory_order_relaxed) && t.ran_forward &&
         !step_detection::t_detector.backward_seen;
}

// The name of a dispatched op whose name has none of the flags that need start_op, if cached.
inline const OpName* plain_operator_name(const c10::FunctionSchema& schema) {
  const OpName* name = cached_operator_op_name(&schema, schema.name());
  return name != nullptr && (name->flags & (kAutogradEntry | kInputRequest | kNoNameId)) == 0 ? name : nullptr;
}

// How long a thread in its steady state goes between checks that its memory reporter is still
// installed: about 0.1 ms at today's TSC rates. The lookup costs LibTorch's thread-local
// search, about a tiny op's worth; another profiler taking the reporter off (LibTorch's, when
// it stops) is rare, and found within this time.
constexpr uint64_t kReporterRecheckTicks = uint64_t{1} << 18;

// The memory reporter at a steady thread's top-level op `top`, just begun: checked when the
// last check is kReporterRecheckTicks old, or found it missing.
inline void keep_memory_reporter(const capture::OpFrame& top) {
  ThreadOps& t = t_ops;
  if (__builtin_expect(top.record != nullptr && t.reporter && top.start - t.reporter_checked < kReporterRecheckTicks,
                       1))
    return;
  t.reporter = ensure_memory_reporter();
  t.reporter_checked = top.record != nullptr ? top.start : now_ticks();
}

// A dispatched forward op at level 3, nested or on a thread in its steady state: with its
// inputs, and the memory reporter kept at a top-level op. Everything else is start_op's.
__attribute__((noinline)) void start_op_with_inputs(capture::OpStack& stack, const at::RecordFunction& fn,
                                                    const c10::FunctionSchema& schema) {
  const OpName* name = plain_operator_name(schema);
  if (__builtin_expect(name != nullptr && fn.needsInputs(), 1)) {
    const bool top_level = stack.depth == 0;
    if (top_level && __builtin_expect(!forward_top_level_op_is_steady(), 0)) return start_op(fn);
    // The reporter is kept after the op begins: the op's allocations come later.
    if (__builtin_expect(begin_with_inputs(stack, fn, *name), 1)) {
      if (top_level) keep_memory_reporter(stack.frames[0]);
      return;
    }
    if (top_level) t_ops.reporter = ensure_memory_reporter();
    return begin_other_op(stack, fn, name, at::RecordScope::FUNCTION, false, kVerbose);
  }
  start_op(fn);
}

// Every op begins here. The floor of op tracing is a forward op LibTorch dispatches (named by
// its registered operator) at host_tracer_level 2, nested or on a thread in its steady state:
// recorded with no call at all. At level 3 such an op is start_op_with_inputs'; everything
// else is start_op's.
std::unique_ptr<at::ObserverContext> on_op_start(const at::RecordFunction& fn) {
  capture::OpStack* stack = capture::t_op_stack;
  const c10::FunctionSchema* schema = registered_operator(fn);
  if (__builtin_expect(stack != nullptr && schema != nullptr && fn.scope() == at::RecordScope::FUNCTION, 1)) {
    const int trace_level = internal::g_trace_level.load(std::memory_order_relaxed);
    if (__builtin_expect(trace_level == kInfo, 1)) {
      const OpName* name = plain_operator_name(*schema);
      if (__builtin_expect(name != nullptr && (stack->depth != 0 || forward_top_level_op_is_steady()) &&
                               internal::op_begin_plain_fast(*stack, name->record_head, fn.seqNr()), 1)) {
        return nullptr;
      }
    } else if (trace_level == kVerbose) {
      start_op_with_inputs(*stack, fn, *schema);
      return nullptr;
    }
  }
  start_op(fn);
  return nullptr;
}

void on_op_end(const at::RecordFunction&, at::ObserverContext*) {
  if (internal::op_end() != 0) return;
  // The session no longer records memory: leave the thread as it was.
  ThreadOps& t = t_ops;
  if (__builtin_expect(t.reporter, 0) && !internal::recording_memory()) {
    release_memory_reporter();
    t.reporter = false;
  }
}

// One registration per form; switching between them never removes a callback (LibTorch
// asks that no op run while one is removed).
std::mutex g_mu;
at::CallbackHandle g_plain = at::INVALID_CALLBACK_HANDLE;
at::CallbackHandle g_with_inputs = at::INVALID_CALLBACK_HANDLE;

at::CallbackHandle register_callback(bool with_inputs) {
  return at::addGlobalCallback(at::RecordFunctionCallback(on_op_start, on_op_end)
                                   .needsInputs(with_inputs)
                                   .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION,
                                            at::RecordScope::USER_SCOPE, at::RecordScope::TORCHSCRIPT_FUNCTION}));
}

}  // namespace

void enable_op_callbacks(bool with_inputs) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_session.fetch_add(1, std::memory_order_relaxed);
  at::CallbackHandle& on = with_inputs ? g_with_inputs : g_plain;
  const at::CallbackHandle off = with_inputs ? g_plain : g_with_inputs;
  if (off != at::INVALID_CALLBACK_HANDLE) at::disableCallback(off);
  if (on == at::INVALID_CALLBACK_HANDLE) on = register_callback(with_inputs);
  else at::reenableCallback(on);
}

void disable_op_callbacks() {
  std::lock_guard<std::mutex> lock(g_mu);
  for (at::CallbackHandle h : {g_plain, g_with_inputs})
    if (h != at::INVALID_CALLBACK_HANDLE) at::disableCallback(h);
  ThreadOps& t = t_ops;
  if (t.reporter) {
    release_memory_reporter();
    t.reporter = false;
  }
}

}  // namespace mlprof::libtorch
