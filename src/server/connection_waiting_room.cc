#include "server/connection_waiting_room.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <charconv>
#include <string_view>

namespace mlprof::server {
namespace {

using std::chrono::milliseconds;

// How long a closing connection drops what its client still sends.
constexpr milliseconds kDrainTime{2'000};

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The body length a head announces: 0 without one; SIZE_MAX when the request will be refused
// before its body is read (chunked, or a length that is no number).
size_t announced_body_bytes(std::string_view head) {
  size_t length = 0;
  size_t line_start = head.find('\n');  // headers follow the request line
  while (line_start != std::string_view::npos && line_start + 1 < head.size()) {
    const size_t begin = line_start + 1;
    const size_t end = head.find('\n', begin);
    const std::string_view line = head.substr(begin, end == std::string_view::npos ? head.npos : end - begin);
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos) {
      const std::string_view name = trim(line.substr(0, colon));
      const std::string_view value = trim(line.substr(colon + 1));
      if (equals_ignoring_case(name, "transfer-encoding")) return SIZE_MAX;
      if (equals_ignoring_case(name, "content-length")) {
        const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), length);
        if (ec != std::errc() || ptr != value.data() + value.size()) return SIZE_MAX;
      }
    }
    line_start = end;
  }
  return length;
}

}  // namespace

RequestProgress request_progress(std::string_view bytes, const WaitingRoomLimits& limits) {
  // The head ends at its first empty line after the request line, as the request stream counts
  // it (a line ends at '\n'; '\r' does not count).
  size_t line_bytes = 0;
  bool request_line_read = false;
  const size_t scan = std::min(bytes.size(), limits.max_head_bytes);
  for (size_t i = 0; i < scan; ++i) {
    if (bytes[i] != '\n') {
      line_bytes += bytes[i] == '\r' ? 0 : 1;
      continue;
    }
    if (line_bytes == 0 && request_line_read) {
      const size_t head_bytes = i + 1;
      const size_t body = announced_body_bytes(bytes.substr(0, head_bytes));
      if (body > limits.max_body_bytes) return RequestProgress::kComplete;  // refused unread
      return bytes.size() - head_bytes >= body ? RequestProgress::kComplete : RequestProgress::kIncomplete;
    }
    request_line_read = true;
    line_bytes = 0;
  }
  return bytes.size() >= limits.max_head_bytes ? RequestProgress::kHeadTooLarge : RequestProgress::kIncomplete;
}

ConnectionWaitingRoom::ConnectionWaitingRoom(WaitingRoomLimits limits, Handler ready, Handler timed_out)
    : limits_(limits), ready_(std::move(ready)), timed_out_(std::move(timed_out)) {
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  thread_ = std::thread([this] { run(); });
}

ConnectionWaitingRoom::~ConnectionWaitingRoom() {
  stop();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void ConnectionWaitingRoom::wake() {
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_fd_, &one, sizeof one);
}

void ConnectionWaitingRoom::park(std::shared_ptr<WaitingConnection> connection) {
  const auto now = WaitClock::now();
  connection->parked_at = now;
  connection->started = connection->unread() > 0 || !connection->idle_keep_alive;
  connection->deadline = now + (connection->idle_keep_alive && connection->unread() == 0 ? limits_.keep_alive_time
                                                                                        : limits_.request_time);
  hand_to_thread(std::move(connection));
}

void ConnectionWaitingRoom::close_after_drain(std::shared_ptr<WaitingConnection> connection) {
  ::shutdown(connection->fd, SHUT_WR);
  connection->draining = true;
  connection->pending.clear();
  connection->consumed = 0;
  connection->parked_at = WaitClock::now();
  connection->deadline = connection->parked_at + kDrainTime;
  hand_to_thread(std::move(connection));
}

void ConnectionWaitingRoom::hand_to_thread(std::shared_ptr<WaitingConnection> connection) {
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      arriving_.push_back(std::move(connection));
      wake();
      return;
    }
  }
  ::close(connection->fd);  // stopped: nobody will wait on it
}

void ConnectionWaitingRoom::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake();
  if (thread_.joinable()) thread_.join();
  for (auto& c : arriving_) ::close(c->fd);
  arriving_.clear();
}

void ConnectionWaitingRoom::admit_parked(std::vector<std::shared_ptr<WaitingConnection>>& waiting) {
  std::lock_guard lock(mutex_);
  for (auto& c : arriving_) waiting.push_back(std::move(c));
  arriving_.clear();
}

void ConnectionWaitingRoom::run() {
  std::vector<std::shared_ptr<WaitingConnection>> waiting;
  std::vector<pollfd> fds;
  char chunk[16384];
  for (;;) {
    admit_parked(waiting);
    {
      std::lock_guard lock(mutex_);
      if (stopping_) break;
    }
    // The bounds: the oldest waiting connections close first.
    size_t buffered = 0;
    for (const auto& c : waiting) buffered += c->pending.size();
    if (waiting.size() > limits_.max_connections || buffered > limits_.max_buffered_bytes) {
      std::sort(waiting.begin(), waiting.end(), [](const auto& a, const auto& b) { return a->parked_at < b->parked_at; });
      size_t close_count = 0;
      while (close_count < waiting.size() &&
             (waiting.size() - close_count > limits_.max_connections || buffered > limits_.max_buffered_bytes)) {
        buffered -= waiting[close_count]->pending.size();
        ::close(waiting[close_count]->fd);
        ++close_count;
      }
      waiting.erase(waiting.begin(), waiting.begin() + ptrdiff_t(close_count));
    }

    auto next_deadline = WaitClock::now() + std::chrono::seconds(1);
    fds.assign(1, pollfd{wake_fd_, POLLIN, 0});
    for (const auto& c : waiting) {
      fds.push_back(pollfd{c->fd, POLLIN, 0});
      next_deadline = std::min(next_deadline, c->deadline);
    }
    const auto wait = std::chrono::duration_cast<milliseconds>(next_deadline - WaitClock::now());
    const int n = ::poll(fds.data(), fds.size(), int(std::max<int64_t>(0, wait.count() + 1)));
    if (n < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) {
      uint64_t count;
      [[maybe_unused]] const ssize_t r = ::read(wake_fd_, &count, sizeof count);
    }

    const auto now = WaitClock::now();
    std::vector<std::shared_ptr<WaitingConnection>> still_waiting;
    still_waiting.reserve(waiting.size());
    for (size_t i = 0; i < waiting.size(); ++i) {
      auto& c = waiting[i];
      const short revents = n > 0 ? fds[i + 1].revents : 0;
      if (revents & (POLLIN | POLLHUP | POLLERR)) {
        const ssize_t got = ::recv(c->fd, chunk, sizeof chunk, MSG_DONTWAIT);
        if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
          ::close(c->fd);  // the client closed, or the connection failed: nothing to answer
          continue;
        }
        if (got > 0 && !c->draining) {
          if (!c->started) {  // a kept-alive connection's next request begins: its time starts
            c->started = true;
            c->deadline = now + limits_.request_time;
          }
          c->pending.append(chunk, size_t(got));
          const auto progress =
              request_progress(std::string_view(c->pending).substr(c->consumed), limits_);
          if (progress != RequestProgress::kIncomplete) {
            ready_(std::move(c));
            continue;
          }
        }
      }
      if (now >= c->deadline) {
        if (c->draining || !c->started || c->unread() == 0) ::close(c->fd);  // idle: close quietly
        else timed_out_(std::move(c));
        continue;
      }
      still_waiting.push_back(std::move(c));
    }
    waiting.swap(still_waiting);
  }
  for (auto& c : waiting) ::close(c->fd);
}

}  // namespace mlprof::server
