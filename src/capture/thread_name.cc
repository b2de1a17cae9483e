// mlprof::set_thread_name: names the calling thread's line in this and later sessions.
#include "capture/thread_name.h"

#include <pthread.h>

#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <string_view>
#include <unordered_set>

#include "mlprof/mlprof.h"
#include "capture/recorder.h"

namespace mlprof::capture {
namespace {

// Immortal: threads exit, and sessions end, after static destructors.
struct ThreadNames {
  std::mutex mu;
  bool capture_running = false;  // a session records or is being written
  // Kept until that session ends; a thread taking one of these names again reuses it, so
  // threads that switch between a few names keep a few copies, not one per switch.
  std::unordered_multiset<std::string_view> retired;
};

ThreadNames& thread_names() {
  static ThreadNames* names = new ThreadNames;
  return *names;
}

// fork() while another thread holds the lock (a session freeing the retired names, say)
// would leave the child a half-updated set, whose names it would free again: the forking
// thread waits for the lock, and the child makes it anew (reset_thread_names_after_fork).
__attribute__((constructor)) void hold_thread_names_across_fork() {
  pthread_atfork([] { thread_names().mu.lock(); }, [] { thread_names().mu.unlock(); }, nullptr);
}

void retire_locked(ThreadNames& names, const char* name) {
  if (name == nullptr) return;
  if (!names.capture_running) {
    delete[] name;
    return;
  }
  try {
    names.retired.emplace(name);
  } catch (const std::bad_alloc&) {
    // Kept for good rather than freed while a chunk may point at it.
  }
}

}  // namespace

void retire_thread_name(const char* name) noexcept {
  ThreadNames& names = thread_names();
  std::lock_guard<std::mutex> lock(names.mu);
  retire_locked(names, name);
}

void thread_names_capture_begins() noexcept {
  ThreadNames& names = thread_names();
  std::lock_guard<std::mutex> lock(names.mu);
  names.capture_running = true;
}

void thread_names_capture_ends() noexcept {
  ThreadNames& names = thread_names();
  std::lock_guard<std::mutex> lock(names.mu);
  names.capture_running = false;
  for (std::string_view name : names.retired) delete[] name.data();
  names.retired.clear();
}

void reset_thread_names_after_fork() noexcept {
  ThreadNames& names = thread_names();
  new (&names.mu) std::mutex;
  names.capture_running = false;  // the parent's session is not the child's
}

}  // namespace mlprof::capture

namespace mlprof {

void set_thread_name(std::string_view name) {
  capture::ThreadNames& names = capture::thread_names();
  std::lock_guard<std::mutex> lock(names.mu);
  const char* copy = nullptr;
  if (const auto kept = names.retired.find(name); kept != names.retired.end()) {
    copy = kept->data();
    names.retired.erase(kept);
  } else {
    char* fresh = new char[name.size() + 1];
    std::memcpy(fresh, name.data(), name.size());
    fresh[name.size()] = '\0';
    copy = fresh;
  }
  capture::retire_locked(names, capture::set_name_of_this_thread(copy));
}

}  // namespace mlprof
