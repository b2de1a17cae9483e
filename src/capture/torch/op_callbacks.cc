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
#include "capture/torch/registered_operator.h"
#include "capture/torch/step_detector.h"

namespace mlprof::libtorch {
namespace {

constexpr size_t kMaxInputBytes = 1024;

// Bumped per enable: what a thread did once per session is redone in the next.
std::atomic<uint32_t> g_session{1};

// Per thread, touched only by it. Trivial and initial-exec: no guard and no call to find it.
struct ThreadOps {
  uint32_t session;
  bool ran_forward;  // ran a top-level op that was not backward
  bool named;
  bool reporter;     // the memory reporter is installed
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
// recorded: steps, the memory reporter.
inline void on_top_level_op_start(const at::RecordFunction& fn, const OpName* name, bool backward, int trace_level) {
  ThreadOps& t = t_ops;
  if (__builtin_expect(t.session != g_session.load(std::memory_order_relaxed), 0)) {
    first_op_of_session(t, fn, backward, trace_level);
  } else if (trace_level >= kVerbose) {
    t.reporter = ensure_memory_reporter();
  }
  t.ran_forward |= !backward;
  on_top_level_op(backward, grad_mode_enabled);
  // torch.utils.data.DataLoader's iterator: one step per batch, as for a traced C++ loader.
  if (__builtin_expect((name->flags & kInputRequest) != 0, 0)) on_input_request(now_ticks());
}

// Any op, at any level: what on_op_start leaves to it.
__attribute__((noinline)) void start_op(const at::RecordFunction& fn) {
  capture::OpStack* stack = internal::this_thread_op_stack();
  if (__builtin_expect(stack == nullptr, 0)) return;  // out of memory: op_end sees depth 0
  const int trace_level = internal::g_trace_level.load(std::memory_order_relaxed);
  const at::RecordScope scope = fn.scope();
  const OpName* name = intern_op_name(fn.name());
  const bool backward = scope == at::RecordScope::BACKWARD_FUNCTION || (name->flags & kAutogradEntry) != 0;
  uint16_t flags = backward ? capture::kOpBackward : 0;
  if (name->flags & kFactoryOp) flags |= capture::kOpFactory;
  int level = kInfo;
  if (__builtin_expect(scope == at::RecordScope::USER_SCOPE, 0)) {
    flags |= capture::kOpUserScope;
    level = kCritical;
  }
  if (stack->depth == 0) on_top_level_op_start(fn, name, backward, trace_level);

  const uint32_t fwd_thread = backward ? uint32_t(fn.forwardThreadId()) : 0;
  if (trace_level >= kVerbose && fn.needsInputs()) {
    const OpInputs inputs{&fn, name};
    internal::op_begin(*stack, {name->text, name->id}, level, fn.seqNr(), fwd_thread, flags, encode_inputs, &inputs,
                       kMaxInputBytes);
  } else {
    internal::op_begin(*stack, {name->text, name->id}, level, fn.seqNr(), fwd_thread, flags);
  }
}

// Whether a forward top-level op would change nothing of the thread's state: its first op
// of the session has run (first_op_of_session), it ran forward before, and no backward pass
// waits for a step to begin (step_detector.h). The session's id changes with each session
// start, after the steps' generation: a thread that passes has seen the current one.
inline bool forward_top_level_op_changes_nothing() {
  const ThreadOps& t = t_ops;
  return t.session == g_session.load(std::memory_order_relaxed) && t.ran_forward &&
         !step_detection::t_detector.backward_seen;
}

// The floor of op tracing: an op LibTorch dispatches (named by its registered operator),
// at host_tracer_level 2, whose thread's state it leaves as it is. The rest is start_op's.
std::unique_ptr<at::ObserverContext> on_op_start(const at::RecordFunction& fn) {
  capture::OpStack* stack = capture::t_op_stack;
  const c10::FunctionSchema* schema = registered_operator(fn);
  if (__builtin_expect(stack != nullptr && schema != nullptr && fn.scope() == at::RecordScope::FUNCTION &&
                           internal::g_trace_level.load(std::memory_order_relaxed) == kInfo, 1)) {
    const OpName* name = operator_op_name(schema, schema->name());
    if (__builtin_expect((name->flags & (kAutogradEntry | kInputRequest | kNoNameId)) == 0 &&
                             (stack->depth != 0 || forward_top_level_op_changes_nothing()), 1)) {
      internal::op_begin_plain(*stack, name->record_head, fn.seqNr());
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
