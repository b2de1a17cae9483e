// mlprof::set_thread_name: names the calling thread's line in this and later sessions.
#include "capture/thread_name.h"

#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "mlprof/mlprof.h"
#include "capture/recorder.h"

namespace mlprof::capture {
namespace {

// Immortal: threads exit, and sessions end, after static destructors.
struct ThreadNames {
  std::mutex mu;
  bool capture_running = false;  // a session records or is being written
  std::vector<const char*> retired;  // kept until that session ends
};

ThreadNames& thread_names() {
  static ThreadNames* names = new ThreadNames;
  return *names;
}

void retire_locked(ThreadNames& names, const char* name) {
  if (name == nullptr) return;
  if (!names.capture_running) {
    delete[] name;
    return;
  }
  try {
    names.retired.push_back(name);
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
  for (const char* name : names.retired) delete[] name;
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
  char* copy = new char[name.size() + 1];
  std::memcpy(copy, name.data(), name.size());
  copy[name.size()] = '\0';
  capture::ThreadNames& names = capture::thread_names();
  std::lock_guard<std::mutex> lock(names.mu);
  capture::retire_locked(names, capture::set_name_of_this_thread(copy));
}

}  // namespace mlprof
