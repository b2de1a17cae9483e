#include "server/bounded_http_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <string>
#include <string_view>

namespace mlprof::server {
namespace {

using std::chrono::milliseconds;

// Waits until the socket is ready for `events`, at most `timeout`.
bool wait_for(int sock, short events, milliseconds timeout) {
  pollfd p{sock, events, 0};
  for (;;) {
    const int n = ::poll(&p, 1, int(timeout.count()));
    if (n < 0 && errno == EINTR) continue;
    return n > 0 && !(events == POLLOUT && (p.revents & (POLLERR | POLLHUP)));
  }
}

milliseconds to_ms(time_t sec, time_t usec) { return milliseconds(sec * 1000 + usec / 1000); }

void address_of(int sock, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  auto* a = reinterpret_cast<sockaddr*>(&addr);
  if ((peer ? ::getpeername(sock, a, &len) : ::getsockname(sock, a, &len)) != 0) return;
  char host[NI_MAXHOST];
  if (::getnameinfo(a, len, host, sizeof host, nullptr, 0, NI_NUMERICHOST) == 0) ip = host;
  if (addr.ss_family == AF_INET) port = ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  if (addr.ss_family == AF_INET6) port = ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
}

// A short answer of the server's own, sent without waiting long for a slow reader.
void send_refusal(int sock, int status, const char* reason, const char* error, milliseconds write_timeout) {
  const std::string body = std::string(R"({"error": ")") + error + "\"}";
  const std::string response = "HTTP/1.1 " + std::to_string(status) + " " + reason +
                               "\r\nContent-Type: application/json\r\nContent-Length: " +
                               std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  for (size_t sent = 0; sent < response.size() && wait_for(sock, POLLOUT, write_timeout);) {
    const ssize_t n = ::send(sock, response.data() + sent, response.size() - sent, MSG_NOSIGNAL);
    if (n <= 0 && errno != EINTR) break;
    if (n > 0) sent += size_t(n);
  }
}

// One request's stream: reads first what the waiting room gathered, counts the bytes of the
// head (up to the empty line that ends the headers) and refuses the request, with its own
// answer, once they pass the limit.
class RequestStream final : public httplib::Stream {
 public:
  RequestStream(WaitingConnection& connection, size_t max_head_bytes, milliseconds read_timeout,
                milliseconds write_timeout)
      : sock_(connection.fd), connection_(connection), max_head_bytes_(max_head_bytes), read_timeout_(read_timeout),
        write_timeout_(write_timeout) {}

  bool is_readable() const override { return connection_.unread() > 0 || wait_for(sock_, POLLIN, read_timeout_); }
  bool is_writable() const override { return !refused_ && wait_for(sock_, POLLOUT, write_timeout_); }

  ssize_t read(char* ptr, size_t size) override {
    if (refused_) return -1;
    if (connection_.unread() == 0) {
      // The waiting room handed over the whole request: reading on is a body without a
      // length, refused before it is read, or a client that sent less than it announced.
      connection_.compact();
      if (!wait_for(sock_, POLLIN, read_timeout_)) return -1;
      char chunk[4096];
      ssize_t n;
      do n = ::recv(sock_, chunk, sizeof chunk, 0);
      while (n < 0 && errno == EINTR);
      if (n <= 0) return n;
      connection_.pending.append(chunk, size_t(n));
    }
    size_t n = std::min(size, connection_.unread());
    const char* bytes = connection_.pending.data() + connection_.consumed;
    if (in_head_ && !count_head(bytes, n)) {
      if (request_line_read_) refuse(431, "Request Header Fields Too Large", "the request's headers are too large");
      else refuse(414, "URI Too Long", "the request's URL is too long");
      return -1;
    }
    std::copy(bytes, bytes + n, ptr);
    connection_.consumed += n;
    return ssize_t(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    // An answer before the head's end is httplib's 400 or 414 for a malformed head: what
    // follows is no request, so the connection ends after it.
    answered_early_ = answered_early_ || in_head_;
    // httplib announces "Connection: close" for some answers without closing after them: the
    // connection ends as announced. (It writes the status line and headers in one piece.)
    const std::string_view bytes(ptr, size);
    announced_close_ = announced_close_ ||
                       (bytes.rfind("HTTP/1.", 0) == 0 && bytes.find("\r\nConnection: close\r\n") != bytes.npos);
    if (!is_writable()) return -1;
    ssize_t n;
    do n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { address_of(sock_, true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address_of(sock_, false, ip, port); }
  socket_t socket() const override { return sock_; }

  // Whether the connection must close after this request: its head was refused or malformed,
  // or the answer said it closes.
  bool ends_connection() const { return refused_ || answered_early_ || announced_close_; }

 private:
  // Follows the head through `n` bytes about to be handed out, shortening `n` to end at the
  // head's last byte; false once the head is over the limit.
  bool count_head(const char* bytes, size_t& n) {
    for (size_t i = 0; i < n; ++i) {
      if (++head_bytes_ > max_head_bytes_) return false;
      if (bytes[i] != '\n') {
        line_bytes_ += bytes[i] == '\r' ? 0 : 1;
        continue;
      }
      if (line_bytes_ == 0 && request_line_read_) {  // the empty line: the body follows
        in_head_ = false;
        n = i + 1;
        return true;
      }
      request_line_read_ = true;
      line_bytes_ = 0;
    }
    return true;
  }

  // Answers the request in place of httplib, which never sees its whole head.
  void refuse(int status, const char* reason, const char* error) {
    refused_ = true;
    send_refusal(sock_, status, reason, error, write_timeout_);
  }

  const int sock_;
  WaitingConnection& connection_;
  const size_t max_head_bytes_;
  const milliseconds read_timeout_, write_timeout_;
  bool in_head_ = true, request_line_read_ = false, refused_ = false, answered_early_ = false;
  bool announced_close_ = false;
  size_t head_bytes_ = 0, line_bytes_ = 0;
};

}  // namespace

// httplib's accept loop hands each accepted socket to a task queue. This one runs the task at
// once on the accepting thread: process_and_close_socket only parks the socket in the waiting
// room, so accepting never waits on a client.
class BoundedHttpServer::AcceptedQueue final : public httplib::TaskQueue {
 public:
  explicit AcceptedQueue(BoundedHttpServer& server) : server_(server) {}
  void enqueue(std::function<void()> fn) override { fn(); }
  void shutdown() override { server_.stop_connections(); }

 private:
  BoundedHttpServer& server_;
};

BoundedHttpServer::BoundedHttpServer(size_t max_head_bytes, milliseconds max_request_time, size_t max_body_bytes) {
  limits_.max_head_bytes = max_head_bytes;
  limits_.max_body_bytes = max_body_bytes;
  limits_.request_time = max_request_time;
  // Each listen starts its workers and waiting room; its end stops them.
  new_task_queue = [this]() -> httplib::TaskQueue* {
    limits_.keep_alive_time = milliseconds(keep_alive_timeout_sec_ * 1000);
    workers_ = std::make_unique<httplib::ThreadPool>(CPPHTTPLIB_THREAD_POOL_COUNT);
    waiting_room_ = std::make_unique<ConnectionWaitingRoom>(
        limits_, [this](std::shared_ptr<WaitingConnection> c) { workers_->enqueue([this, c] { serve_connection(c); }); },
        [this](std::shared_ptr<WaitingConnection> c) { refuse_late_request(std::move(c)); });
    return new AcceptedQueue(*this);
  };
}

BoundedHttpServer::~BoundedHttpServer() { stop_connections(); }

void BoundedHttpServer::stop_connections() {
  if (waiting_room_) waiting_room_->stop();
  if (workers_) workers_->shutdown();
  workers_.reset();
}

void BoundedHttpServer::widen_listen_backlog() {
  // Listening again on a listening socket only changes its backlog.
  if (svr_sock_ != INVALID_SOCKET) ::listen(svr_sock_, SOMAXCONN);
}

bool BoundedHttpServer::process_and_close_socket(socket_t sock) {
  int yes = 1;
  ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
  auto connection = std::make_shared<WaitingConnection>();
  connection->fd = sock;
  connection->requests_left = keep_alive_max_count_;
  waiting_room_->park(std::move(connection));
  return true;
}

void BoundedHttpServer::serve_connection(std::shared_ptr<WaitingConnection> connection) {
  const milliseconds read_timeout = to_ms(read_timeout_sec_, read_timeout_usec_);
  const milliseconds write_timeout = to_ms(write_timeout_sec_, write_timeout_usec_);
  for (;;) {
    RequestStream stream(*connection, limits_.max_head_bytes, read_timeout, write_timeout);
    bool closed = false;
    const bool last = connection->requests_left <= 1;
    const bool ok = process_request(stream, last, closed, nullptr);
    --connection->requests_left;
    if (!ok || closed || last || stream.ends_connection() || svr_sock_ == INVALID_SOCKET) {
      waiting_room_->close_after_drain(std::move(connection));
      return;
    }
    connection->compact();
    // A client may send its requests back to back: answer the next one now if it is all here.
    if (request_progress(connection->pending, limits_) == RequestProgress::kIncomplete) {
      connection->idle_keep_alive = true;
      waiting_room_->park(std::move(connection));
      return;
    }
  }
}

void BoundedHttpServer::refuse_late_request(std::shared_ptr<WaitingConnection> connection) {
  send_refusal(connection->fd, 408, "Request Timeout", "the request took too long to arrive", milliseconds(0));
  waiting_room_->close_after_drain(std::move(connection));
}

}  // namespace mlprof::server
