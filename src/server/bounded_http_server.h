// httplib's server with bounds on each request's head (request line and header lines).
// httplib 0.11 reads a request line to its end however long it is, and any number of header
// lines, so one client sending an endless URL or endless headers could make the server hold
// as much memory as it cares to send; and it waits for each byte as long as its read timeout,
// so a client sending a byte now and then holds a worker for good. Here each request is read
// through a socket stream that stops at `max_head_bytes` (the client gets 414 for the request
// line, 431 for the headers) or when the head has taken `max_head_time` (408); the connection
// then closes.
//
// Every connection also closes gracefully: the server stops writing, then reads and drops what
// the client still sends for a moment, so a client that is still sending a body the server
// refused reads the refusal instead of a connection reset.
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>

namespace mlprof::server {

class BoundedHttpServer : public httplib::Server {
 public:
  BoundedHttpServer(size_t max_head_bytes, std::chrono::milliseconds max_head_time)
      : max_head_bytes_(max_head_bytes), max_head_time_(max_head_time) {}

  // Lets the bound socket queue as many connections as the system allows. httplib listens with
  // a backlog of 5: a page opening a dozen requests at once, or a burst of clients, lose their
  // connection attempts and retry after a second. Call after binding.
  void widen_listen_backlog();

 private:
  bool process_and_close_socket(socket_t sock) override;
  bool wait_for_next_request(socket_t sock) const;

  const size_t max_head_bytes_;
  const std::chrono::milliseconds max_head_time_;
};

}  // namespace mlprof::server
