// Where a connection waits, between accept and its request and between one request and the
// next, without holding a worker thread. One thread polls every waiting connection, gathers
// the bytes of its next request (the head, and the body its Content-Length announces) and hands
// the connection to a worker only when the whole request is there, so clients that send a byte
// now and then (slowloris) or keep an idle connection open cost a file descriptor and a buffer,
// never a worker: a normal client is answered at once however many of them wait.
//
// Bounds: each request must arrive within `request_time` of its first byte (a new connection:
// of its accept), an idle kept-alive connection closes after `keep_alive_time`; at most
// `max_connections` wait and at most `max_buffered_bytes` are held among them, the oldest
// waiting connection closing first when a bound is reached.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mlprof::server {

using WaitClock = std::chrono::steady_clock;

// A client connection and the bytes read from it that no request has consumed yet.
struct WaitingConnection {
  int fd = -1;
  std::string pending;     // bytes read ahead: the next request, perhaps the one after
  size_t consumed = 0;     // of `pending`, already handed out
  size_t requests_left = 0;
  bool idle_keep_alive = false;  // waits for a next request on a connection that served one
  WaitClock::time_point parked_at{};
  WaitClock::time_point deadline{};
  bool started = false;          // the request's first byte has come
  bool draining = false;         // answered and closing: what the client still sends is dropped

  size_t unread() const { return pending.size() - consumed; }
  // Drops what was handed out, so the buffer holds only what is still to come.
  void compact() {
    pending.erase(0, consumed);
    consumed = 0;
  }
};

struct WaitingRoomLimits {
  size_t max_head_bytes = 64 << 10;
  size_t max_body_bytes = 1 << 20;  // a body announced larger is not waited for: the request is refused
  std::chrono::milliseconds request_time{10'000};
  std::chrono::milliseconds keep_alive_time{2'000};
  size_t max_connections = 1024;
  size_t max_buffered_bytes = size_t(64) << 20;
};

// How far a connection's buffer is from holding one whole request.
enum class RequestProgress { kIncomplete, kComplete, kHeadTooLarge };

// Whether `bytes` begin with a whole request under `limits` (the head, and as much body as its
// Content-Length says, if that is within the limit).
RequestProgress request_progress(std::string_view bytes, const WaitingRoomLimits& limits);

class ConnectionWaitingRoom {
 public:
  // `ready` takes a connection whose next request is complete (or refused: over the head
  // limit); `timed_out` gets one whose request did not arrive in time, to answer and close.
  using Handler = std::function<void(std::shared_ptr<WaitingConnection>)>;
  ConnectionWaitingRoom(WaitingRoomLimits limits, Handler ready, Handler timed_out);
  ~ConnectionWaitingRoom();
  ConnectionWaitingRoom(const ConnectionWaitingRoom&) = delete;
  ConnectionWaitingRoom& operator=(const ConnectionWaitingRoom&) = delete;

  // Waits for the connection's next request. A new connection (never served) gets
  // `request_time` for its request, a kept-alive one `keep_alive_time` to start the next.
  // After stop() the connection is closed at once.
  void park(std::shared_ptr<WaitingConnection> connection);

  // Closes the connection gracefully without holding the caller: stops writing, then drops
  // what the client still sends until it closes or two seconds pass (closing with unread
  // input would reset the connection and could destroy the answer before the client reads it).
  void close_after_drain(std::shared_ptr<WaitingConnection> connection);

  // Closes every waiting connection and ends the thread. Idempotent.
  void stop();

  const WaitingRoomLimits& limits() const { return limits_; }

 private:
  void run();
  void admit_parked(std::vector<std::shared_ptr<WaitingConnection>>& waiting);
  void wake();
  // Queues the connection for the polling thread, or closes it once the room has stopped.
  void hand_to_thread(std::shared_ptr<WaitingConnection> connection);

  const WaitingRoomLimits limits_;
  const Handler ready_, timed_out_;
  int wake_fd_ = -1;
  std::mutex mutex_;
  std::vector<std::shared_ptr<WaitingConnection>> arriving_;  // under mutex_
  bool stopping_ = false;                                     // under mutex_
  std::thread thread_;
};

}  // namespace mlprof::server
