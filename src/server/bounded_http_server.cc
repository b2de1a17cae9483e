#include "server/bounded_http_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
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

using Clock = std::chrono::steady_clock;
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

// Bytes read from a connection and not yet handed out: they may begin the next request.
struct ReadAhead {
  char bytes[4096];
  size_t begin = 0, end = 0;
  bool empty() const { return begin == end; }
};

// One request's socket stream: counts the bytes of the head (up to the empty line that ends
// the headers) and refuses the request, with its own answer, once they pass the limit or the
// head's time is up.
class HeadLimitedStream final : public httplib::Stream {
 public:
  HeadLimitedStream(int sock, ReadAhead& buffer, size_t max_head_bytes, milliseconds max_head_time,
                    milliseconds read_timeout, milliseconds write_timeout)
      : sock_(sock), buffer_(buffer), max_head_bytes_(max_head_bytes), head_deadline_(Clock::now() + max_head_time),
        read_timeout_(read_timeout), write_timeout_(write_timeout) {}

  bool is_readable() const override { return !buffer_.empty() || wait_for(sock_, POLLIN, read_timeout_); }
  bool is_writable() const override { return !refused_ && wait_for(sock_, POLLOUT, write_timeout_); }

  ssize_t read(char* ptr, size_t size) override {
    if (refused_) return -1;
    if (buffer_.empty()) {
      // A client that sends its head a byte now and then would hold a worker for good.
      const auto head_time_left = std::chrono::duration_cast<milliseconds>(head_deadline_ - Clock::now());
      if (in_head_ && head_time_left < read_timeout_ &&
          (head_time_left <= milliseconds(0) || !wait_for(sock_, POLLIN, head_time_left))) {
        refuse(408, "Request Timeout", "the request's head took too long");
        return -1;
      }
      if (!wait_for(sock_, POLLIN, read_timeout_)) return -1;
      ssize_t n;
      do n = ::recv(sock_, buffer_.bytes, sizeof buffer_.bytes, 0);
      while (n < 0 && errno == EINTR);
      if (n <= 0) return n;
      buffer_.begin = 0;
      buffer_.end = size_t(n);
    }
    size_t n = std::min(size, buffer_.end - buffer_.begin);
    if (in_head_ && !count_head(buffer_.bytes + buffer_.begin, n)) {
      if (request_line_read_) refuse(431, "Request Header Fields Too Large", "the request's headers are too large");
      else refuse(414, "URI Too Long", "the request's URL is too long");
      return -1;
    }
    std::copy(buffer_.bytes + buffer_.begin, buffer_.bytes + buffer_.begin + n, ptr);
    buffer_.begin += n;
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
    const std::string body = std::string(R"({"error": ")") + error + "\"}";
    const std::string response = "HTTP/1.1 " + std::to_string(status) + " " + reason +
                                 "\r\nContent-Type: application/json\r\nContent-Length: " +
                                 std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
    for (size_t sent = 0; sent < response.size() && wait_for(sock_, POLLOUT, write_timeout_);) {
      const ssize_t n = ::send(sock_, response.data() + sent, response.size() - sent, MSG_NOSIGNAL);
      if (n <= 0 && errno != EINTR) break;
      if (n > 0) sent += size_t(n);
    }
  }

  const int sock_;
  ReadAhead& buffer_;
  const size_t max_head_bytes_;
  const Clock::time_point head_deadline_;
  const milliseconds read_timeout_, write_timeout_;
  bool in_head_ = true, request_line_read_ = false, refused_ = false, answered_early_ = false;
  bool announced_close_ = false;
  size_t head_bytes_ = 0, line_bytes_ = 0;
};

// Stops writing, then drops what the client still sends until it closes, goes quiet for a
// moment, or two seconds pass: closing with unread input would reset the connection and could
// destroy the answer before the client reads it.
void close_gracefully(int sock) {
  ::shutdown(sock, SHUT_WR);
  const auto deadline = Clock::now() + std::chrono::seconds(2);
  char scratch[16384];
  while (Clock::now() < deadline && wait_for(sock, POLLIN, milliseconds(250))) {
    const ssize_t n = ::recv(sock, scratch, sizeof scratch, 0);
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  ::close(sock);
}

}  // namespace

void BoundedHttpServer::widen_listen_backlog() {
  // Listening again on a listening socket only changes its backlog.
  if (svr_sock_ != INVALID_SOCKET) ::listen(svr_sock_, SOMAXCONN);
}

// Like httplib's own loop: up to the keep-alive count of requests per connection.
bool BoundedHttpServer::process_and_close_socket(socket_t sock) {
  bool ok = false;
  ReadAhead buffer;  // kept from one request to the next: a client may send them back to back
  for (size_t left = keep_alive_max_count_; left > 0 && (!buffer.empty() || wait_for_next_request(sock)); --left) {
    HeadLimitedStream stream(sock, buffer, max_head_bytes_, max_head_time_,
                             to_ms(read_timeout_sec_, read_timeout_usec_), to_ms(write_timeout_sec_, write_timeout_usec_));
    bool closed = false;
    ok = process_request(stream, left == 1, closed, nullptr);
    if (!ok || closed || stream.ends_connection()) break;
  }
  close_gracefully(sock);
  return ok;
}

// Waits for the next request's first bytes (or the client's close) while the keep-alive time
// lasts; false when it ends or the server is stopping.
bool BoundedHttpServer::wait_for_next_request(socket_t sock) const {
  const auto deadline = Clock::now() + std::chrono::seconds(keep_alive_timeout_sec_);
  while (svr_sock_ != INVALID_SOCKET) {
    if (wait_for(sock, POLLIN, milliseconds(50))) return true;
    if (Clock::now() >= deadline) return false;
  }
  return false;
}

}  // namespace mlprof::server
