#include "capture/session_events.h"

#include <mutex>
#include <new>

#include "capture/op_recorder.h"

namespace mlprof::capture {

std::atomic<int64_t> g_current_step{-1};
std::atomic<bool> g_program_marks_steps{false};

namespace {

constexpr int kMaxListeners = 8;

// Immortal: sessions may end at process exit, after static destructors.
struct Listeners {
  std::mutex mu;
  internal::SessionListener list[kMaxListeners];
  int count = 0;
  bool session_running = false;
  ProfilerOptions options;  // of the running session
};

Listeners& listeners() {
  static Listeners* l = new Listeners;
  return *l;
}

}  // namespace

void notify_session_started(const ProfilerOptions& options) {
  g_program_marks_steps.store(false, std::memory_order_relaxed);
  g_current_step.store(-1, std::memory_order_relaxed);
  Listeners& l = listeners();
  std::lock_guard<std::mutex> lock(l.mu);
  l.session_running = true;
  l.options = options;
  for (int i = 0; i < l.count; ++i) l.list[i].on_start(options);
}

void notify_session_stopping() {
  Listeners& l = listeners();
  std::lock_guard<std::mutex> lock(l.mu);
  if (!l.session_running) return;
  l.session_running = false;
  for (int i = 0; i < l.count; ++i) l.list[i].on_stop();
}

void reset_session_events_after_fork() noexcept {
  Listeners& l = listeners();
  new (&l.mu) std::mutex;
  l.session_running = false;
}

void note_program_step(int64_t step) noexcept {
  g_current_step.store(step, std::memory_order_relaxed);
  if (!g_program_marks_steps.load(std::memory_order_relaxed)) g_program_marks_steps.store(true, std::memory_order_relaxed);
}

}  // namespace mlprof::capture

namespace mlprof::internal {

void add_session_listener(const SessionListener& listener) {
  capture::Listeners& l = capture::listeners();
  std::lock_guard<std::mutex> lock(l.mu);
  if (l.count == capture::kMaxListeners) return;
  l.list[l.count++] = listener;
  if (l.session_running) listener.on_start(l.options);
}

bool program_marks_steps() noexcept { return capture::g_program_marks_steps.load(std::memory_order_relaxed); }

}  // namespace mlprof::internal
