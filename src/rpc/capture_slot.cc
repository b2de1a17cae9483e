#include "rpc/capture_slot.h"

#include <algorithm>

namespace mlprof::rpc {

bool CaptureSlot::claim(const std::string& session_id, std::string* holder) {
  std::lock_guard<std::mutex> lock(mu_);
  if (taken_) {
    *holder = session_id_;
    return false;
  }
  taken_ = true;
  terminate_requested_ = false;
  session_id_ = session_id;
  return true;
}

void CaptureSlot::release() {
  std::lock_guard<std::mutex> lock(mu_);
  taken_ = false;
  terminate_requested_ = false;
  session_id_.clear();
}

std::string CaptureSlot::holder() {
  std::lock_guard<std::mutex> lock(mu_);
  return taken_ ? session_id_ : std::string();
}

bool CaptureSlot::terminate(const std::string& session_id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!taken_ || (!session_id.empty() && session_id != session_id_)) return false;
    terminate_requested_ = true;
  }
  cv_.notify_all();
  return true;
}

CaptureSlot::WaitEnd CaptureSlot::wait_until(Clock::time_point until, const std::function<bool()>& cancelled) {
  // How often a cancelled RPC is noticed; gRPC has no callback for it in the sync API.
  constexpr auto kPoll = std::chrono::milliseconds(20);
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (terminate_requested_) return WaitEnd::kTerminated;
    if (cancelled && cancelled()) return WaitEnd::kCancelled;
    const auto now = Clock::now();
    if (now >= until) return WaitEnd::kTimeReached;
    cv_.wait_until(lock, std::min(until, now + kPoll));
  }
}

}  // namespace mlprof::rpc
