// httplib's server with a bound on each request's head (request line and header lines).
// httplib 0.11 reads a request line to its end however long it is, and any number of header
// lines, so one client sending an endless URL or endless headers could make the server hold
// as much memory as it cares to send. Here each request is read through a socket stream that
// stops at `max_head_bytes`: the client gets 414 (request line) or 431 (headers) and the
// connection closes.
//
// Every connection also closes gracefully: the server stops writing, then reads and drops what
// the client still sends for a moment, so a client that is still sending a body the server
// refused reads the refusal instead of a connection reset.
#pragma once

#include <httplib.h>

#include <cstddef>

namespace mlprof::server {

class BoundedHttpServer : public httplib::Server {
 public:
  explicit BoundedHttpServer(size_t max_head_bytes) : max_head_bytes_(max_head_bytes) {}

  // Lets the bound socket queue as many connections as the system allows. httplib listens with
  // a backlog of 5: a page opening a dozen requests at once, or a burst of clients, lose their
  // connection attempts and retry after a second. Call after binding.
  void widen_listen_backlog();

 private:
  bool process_and_close_socket(socket_t sock) override;
  bool wait_for_next_request(socket_t sock) const;

  const size_t max_head_bytes_;
};

}  // namespace mlprof::server
