#include "capture/signal_exit.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "capture/op_recorder.h"
#include "capture/session.h"

namespace mlprof::capture {
namespace {

constexpr int kExitSignals[] = {SIGINT, SIGTERM, SIGHUP};

// The signal being handled (0: none), and since when: a second one, on any thread, abandons the
// write, unless it is the same signal within a second, sent twice by whoever stops the program
// (to mlprof and to its process group, say), which is one request to stop.
std::atomic<int> g_handling{0};
std::atomic<int64_t> g_handling_since_ms{0};
constexpr int64_t kSameRequestMs = 1000;

int64_t now_ms() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t(t.tv_sec) * 1000 + t.tv_nsec / 1'000'000;
}

bool same_request(int signal) {
  return signal == g_handling.load() && now_ms() - g_handling_since_ms.load() < kSameRequestMs;
}

using PyAtExit = int (*)(void (*)());
using PyIsInitialized = int (*)();
std::atomic<bool> g_python_hook_pending{false};

void say(const char* line) { (void)!::write(STDERR_FILENO, line, std::strlen(line)); }

sigset_t exit_signal_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kExitSignals) sigaddset(&set, s);
  return set;
}

// Ends the program by `signal` as its default action would. The signal is blocked in its
// handler, so it is delivered when the handler returns.
void end_by_default(int signal) {
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

void on_exit_signal(int signal) {
  const int saved_errno = errno;
  int idle = 0;
  if (!g_handling.compare_exchange_strong(idle, signal)) {  // on another thread, while the first waits
    if (!same_request(signal)) {
      say("mlprof: a second signal during the profile's write: the profile is abandoned\n");
      abandon_write_in_progress();
      end_by_default(signal);
    }
    errno = saved_errno;
    return;
  }
  g_handling_since_ms.store(now_ms());
  // The session thread writes the run, then ends the program (end_program_after_signal_write).
  if (request_finish_from_signal(signal) != 0) {
    errno = saved_errno;
    return;
  }
  end_by_default(signal);
  errno = saved_errno;
}

bool in_python_interpreter() { return dlsym(RTLD_DEFAULT, "Py_AtExit") != nullptr; }

void python_exit() { internal::stop_session_at_exit(); }

}  // namespace

void write_sessions_on_exit_signals() {
  const bool python = in_python_interpreter();
  if (python) g_python_hook_pending.store(true);  // once, whichever session asks first
  for (int signal : kExitSignals) {
    if (signal == SIGINT && python) continue;  // KeyboardInterrupt; see python_exit
    struct sigaction current {};
    if (sigaction(signal, nullptr, &current) != 0) continue;
    if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;  // the program's
    struct sigaction handler {};
    handler.sa_handler = on_exit_signal;
    handler.sa_mask = exit_signal_set();
    handler.sa_flags = SA_RESTART;
    sigaction(signal, &handler, nullptr);
  }
  register_python_exit_when_ready();
}

void register_python_exit_when_ready() {
  if (!g_python_hook_pending.load(std::memory_order_relaxed)) return;
  static const auto initialized = reinterpret_cast<PyIsInitialized>(dlsym(RTLD_DEFAULT, "Py_IsInitialized"));
  static const auto at_exit = reinterpret_cast<PyAtExit>(dlsym(RTLD_DEFAULT, "Py_AtExit"));
  if (initialized == nullptr || at_exit == nullptr) {
    g_python_hook_pending.store(false);
    return;
  }
  if (initialized() == 0) return;
  if (g_python_hook_pending.exchange(false)) at_exit(python_exit);
}

void end_program_after_signal_write(int signal) {
  if (signal == 0) return;
  ::signal(signal, SIG_DFL);
  // To the process: a thread that does not block it (not this one) takes the default action.
  ::kill(::getpid(), signal);
}

void block_exit_signals_on_this_thread() {
  const sigset_t set = exit_signal_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

}  // namespace mlprof::capture
