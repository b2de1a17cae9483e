// httplib's server with bounds on each request and on slow clients. httplib 0.11 reads a
// request line to its end however long it is, and any number of header lines, and a worker
// waits for each byte as long as its read timeout, so a client sending a byte now and then
// holds one of a few workers for good. Here connections wait for their requests in a
// ConnectionWaitingRoom (one polling thread, no worker held) and reach a worker only with a
// whole request in hand; a head over `max_head_bytes` is refused (414 for the request line,
// 431 for the headers), a request that takes longer than `max_request_time` gets 408, and the
// connection then closes. Answers go out without Nagle's delay (TCP_NODELAY): httplib writes
// the head and the body of an answer separately, and a kept-alive client would otherwise wait
// ~40 ms for each answer's body.
//
// Every connection also closes gracefully: the server stops writing, then reads and drops what
// the client still sends for a moment, so a client that is still sending a body the server
// refused reads the refusal instead of a connection reset.
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <memory>

#include "server/connection_waiting_room.h"

namespace mlprof::server {

class BoundedHttpServer : public httplib::Server {
 public:
  BoundedHttpServer(size_t max_head_bytes, std::chrono::milliseconds max_request_time,
                    size_t max_body_bytes = size_t(1) << 20);
  ~BoundedHttpServer() override;

  // Lets the bound socket queue as many connections as the system allows. httplib listens with
  // a backlog of 5: a page opening a dozen requests at once, or a burst of clients, lose their
  // connection attempts and retry after a second. Call after binding.
  void widen_listen_backlog();

 private:
  class AcceptedQueue;
  bool process_and_close_socket(socket_t sock) override;
  // Answers the requests a connection has ready, then parks it again or closes it.
  void serve_connection(std::shared_ptr<WaitingConnection> connection);
  // Answers 408 to a connection whose request did not arrive in time, and closes it.
  void refuse_late_request(std::shared_ptr<WaitingConnection> connection);
  void stop_connections();

  WaitingRoomLimits limits_;
  std::unique_ptr<httplib::ThreadPool> workers_;
  std::unique_ptr<ConnectionWaitingRoom> waiting_room_;
};

}  // namespace mlprof::server
