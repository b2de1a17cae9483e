// What an attacker on this machine, or a web page in its browser, tries against `mlprof serve`:
// byte ranges past an answer's end (which once read the server's heap), Host and Origin names
// that merely start like loopback ones (DNS rebinding), hundreds of clients sending a byte now
// and then (slowloris). Loopback only, every loop bounded in count and time.
#include <sys/resource.h>

#include <atomic>
#include <vector>

#include "served_fixture.h"

namespace mlprof::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

class ServerAbuse : public ServedLogdir {
 protected:
  void SetUp() override {
    ServedLogdir::SetUp();
    start_server();
  }

  // Sends one request on a new connection and reads the whole answer.
  std::string exchange(const std::string& bytes) {
    const int fd = connect_to(port());
    EXPECT_GE(fd, 0);
    send_all(fd, bytes);
    const std::string response = read_until_closed(fd);
    ::close(fd);
    return response;
  }

  std::string get_with(const std::string& path, const std::string& headers) {
    return exchange("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + headers + "\r\n");
  }
};

// The length a response's headers announce, or -1.
long content_length_of(const std::string& response) {
  const auto at = response.find("\r\nContent-Length: ");
  return at == std::string::npos ? -1 : std::atol(response.c_str() + at + 18);
}

TEST_F(ServerAbuse, RangesNeverReachPastTheAnswer) {
  const std::string plain = get_with("/api/runs", "");
  ASSERT_EQ(status_of(plain), 200) << plain;
  const std::string whole = body_of(plain);
  for (const std::string range :
       {"bytes=0-100000000", "bytes=0-4000000000", "bytes=10-5,0-99999999", "bytes=-99999999", "bytes=99999999-",
        "bytes=0-0,1-1,2-2,3-3,4-4,5-5,6-6,7-7,8-8,9-9,10-10,11-11,12-12,13-13,14-14,15-15,16-16,17-17",
        "bytes=0-10,5-20,0-99999"}) {
    for (const std::string path : {"/api/runs", "/", "/api/data?run=input_bound&tool=overview_page"}) {
      const std::string response = get_with(path, "Range: " + range + "\r\n");
      const int status = status_of(response);
      // The whole answer (a byte range of a generated answer is never served) or 416; never
      // more bytes than the answer has.
      EXPECT_TRUE(status == 200 || status == 416 || status == 404) << path << " " << range << ": " << status;
      EXPECT_LE(body_of(response).size(), size_t(std::max<long>(0, content_length_of(response))))
          << path << " " << range;
      EXPECT_LT(response.size(), size_t(1) << 20) << path << " " << range;
      if (path == "/api/runs" && status == 200) EXPECT_EQ(body_of(response), whole) << range;
    }
  }
}

TEST_F(ServerAbuse, HostAndOriginMustNameThisServerExactly) {
  for (const std::string host : {"127.evil.example:6006", "127.0.0.1.evil.example", "localhost.evil.example",
                                 "evil.example", "[::1].evil", "127.0.0.1:80@evil.example", ""}) {
    const std::string response = exchange("GET /api/runs HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(status_of(response), 403) << host << ": " << response.substr(0, 200);
  }
  for (const std::string host : {"127.0.0.1", "127.0.0.1:6006", "localhost:1", "LOCALHOST", "[::1]:6006", "localhost."}) {
    const std::string response = exchange("GET /api/runs HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(status_of(response), 200) << host;
  }
  // A capture posted by a page on a rebinding domain, Host and Origin matching each other.
  const std::string body = R"({"addresses": "127.0.0.1:1", "duration_ms": 100})";
  const std::string forged = exchange(
      "POST /api/capture HTTP/1.1\r\nHost: 127.evil.example:" + std::to_string(port()) +
      "\r\nOrigin: http://127.evil.example:" + std::to_string(port()) +
      "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\n\r\n" + body);
  EXPECT_EQ(status_of(forged), 403) << forged;
  // The right Host with a foreign Origin is refused as well.
  const std::string foreign_origin = exchange(
      "POST /api/capture HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://127.evil.example\r\n"
      "Content-Type: application/json\r\nConnection: close\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body);
  EXPECT_EQ(status_of(foreign_origin), 403) << foreign_origin;
}

TEST(AllowedHosts, NamesCompareWhole) {
  const server::AllowedHosts loopback("127.0.0.1", {"profiles.example.com"});
  EXPECT_TRUE(loopback.allows_host_header("profiles.example.com:6006"));
  EXPECT_TRUE(loopback.allows_host_header("Profiles.Example.Com"));
  EXPECT_FALSE(loopback.allows_host_header("profiles.example.com.evil"));
  EXPECT_FALSE(loopback.allows_host_header("127.1"));
  EXPECT_FALSE(loopback.allows_host_header("::1"));  // an IPv6 Host is bracketed
  EXPECT_TRUE(loopback.allows_origin("http://localhost:6006"));
  EXPECT_TRUE(loopback.allows_origin(""));
  EXPECT_FALSE(loopback.allows_origin("null"));
  EXPECT_FALSE(loopback.allows_origin("http://127.evil.example"));
  EXPECT_TRUE(server::is_loopback_address("127.3.4.5"));
  EXPECT_FALSE(server::is_loopback_address("127.evil.example"));
  EXPECT_TRUE(server::is_loopback_address("::1"));
  const server::AllowedHosts bound("10.1.2.3", {});
  EXPECT_TRUE(bound.allows_host_header("10.1.2.3:6006"));
  EXPECT_FALSE(bound.allows_host_header("10.1.2.4:6006"));
}

// 500 connections each sending a byte a second hold no worker: a normal client is answered at
// once (httplib alone answered it after ~57 s: 8 workers, each held up to 10 s).
TEST_F(ServerAbuse, SlowClientsDoNotDelayOthers) {
  rlimit files{};
  ::getrlimit(RLIMIT_NOFILE, &files);
  if (files.rlim_cur < 1200 && files.rlim_max >= 1200) {
    files.rlim_cur = 1200;
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  ::getrlimit(RLIMIT_NOFILE, &files);
  const size_t slow_count = std::min<size_t>(500, files.rlim_cur > 200 ? (files.rlim_cur - 100) / 2 : 0);
  ASSERT_GE(slow_count, 50u) << "too few file descriptors for the test";

  std::vector<int> slow;
  for (size_t i = 0; i < slow_count; ++i) {
    const int fd = connect_to(port());
    ASSERT_GE(fd, 0) << i;
    slow.push_back(fd);
  }
  std::atomic<bool> done{false};
  std::thread dripper([&] {
    const std::string head = "GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
    for (size_t k = 0; k < head.size() && !done; ++k) {
      for (int fd : slow) send_all(fd, std::string(1, head[k]));
      for (int t = 0; t < 10 && !done; ++t) std::this_thread::sleep_for(100ms);
    }
  });
  std::this_thread::sleep_for(3s);  // the slow clients have all begun their requests

  std::vector<double> seconds;
  for (int i = 0; i < 5; ++i) {
    const auto start = Clock::now();
    auto res = client_->Get("/api/runs");
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    ASSERT_TRUE(res) << i;
    EXPECT_EQ(res->status, 200);
  }
  done = true;
  dripper.join();
  for (int fd : slow) ::close(fd);
  // The target is 1 s; the bound leaves room for a loaded machine while still failing the
  // old server by a wide margin.
  for (double s : seconds) EXPECT_LT(s, 5.0) << "a request took " << s << " s among " << slow_count << " slow clients";
  std::printf("%zu slow clients: normal requests answered in %.3f s at most\n", slow_count,
              *std::max_element(seconds.begin(), seconds.end()));
}

// Each answer goes out without Nagle's delay: 100 requests on one kept-alive connection take
// well under the 4 s the delayed body (~40 ms each) used to cost.
TEST_F(ServerAbuse, KeptAliveRequestsAreNotDelayed) {
  httplib::Client keep_alive("127.0.0.1", port());
  keep_alive.set_keep_alive(true);
  const auto start = Clock::now();
  for (int i = 0; i < 100; ++i) {
    auto res = keep_alive.Get("/api/runs");
    ASSERT_TRUE(res) << i;
    ASSERT_EQ(res->status, 200);
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_LT(seconds, 3.0) << "100 kept-alive requests took " << seconds << " s";
}

// A request whose body trickles in is answered 408 once its time is up, and holds no worker
// meanwhile.
TEST_F(ServerAbuse, AStalledBodyIsRefusedInTime) {
  const int fd = connect_to(port());
  ASSERT_GE(fd, 0);
  send_all(fd, "POST /api/capture HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               "Content-Length: 100\r\nConnection: close\r\n\r\n{\"addr");
  auto res = client_->Get("/api/runs");  // answered while the body waits
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  const std::string response = read_until_closed(fd);
  ::close(fd);
  EXPECT_EQ(status_of(response), 408) << response;
}

}  // namespace
}  // namespace mlprof::testing
