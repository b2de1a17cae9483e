// The profiler server runs one capture at a time. The slot says which session holds it, lets
// Terminate end that capture early, and lets the capture wait for its start time and its end
// without missing either.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>

namespace mlprof::rpc {

class CaptureSlot {
 public:
  using Clock = std::chrono::steady_clock;
  enum class WaitEnd { kTimeReached, kTerminated, kCancelled };

  // Takes the slot for `session_id`. False, with the session that holds it, when taken.
  bool claim(const std::string& session_id, std::string* holder);
  void release();
  // The session holding the slot; empty when none.
  std::string holder();

  // Ends the capture of `session_id` early (an empty id: whatever capture runs). False when
  // no such capture holds the slot.
  bool terminate(const std::string& session_id);

  // Waits until `until`, a terminate, or `cancelled()` (polled: the caller's RPC may be
  // abandoned by its client or by a server shutdown).
  WaitEnd wait_until(Clock::time_point until, const std::function<bool()>& cancelled);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool taken_ = false;
  bool terminate_requested_ = false;
  std::string session_id_;
};

}  // namespace mlprof::rpc
