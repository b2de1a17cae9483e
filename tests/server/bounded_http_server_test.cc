// The request-head bounds of the server under `mlprof serve`, with small limits (1 KB, 300 ms):
// a head over the size is 414 or 431, one that takes too long (a client sending a byte now
// and then, or going quiet mid-head) is 408, and ordinary requests, kept-alive ones included,
// pass.
#include "server/bounded_http_server.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "raw_http.h"

namespace mlprof::testing {
namespace {

using namespace std::chrono_literals;

class BoundedHttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    http_.Get("/hello", [](const httplib::Request&, httplib::Response& res) { res.set_content("hi", "text/plain"); });
    port_ = http_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { http_.listen_after_bind(); });
    while (!http_.is_running()) std::this_thread::sleep_for(1ms);
  }
  void TearDown() override {
    http_.stop();
    thread_.join();
  }

  // Sends `bytes`, then reads until the server closes.
  std::string exchange(const std::string& bytes) {
    const int fd = connect_to(port_);
    send_all(fd, bytes);
    const std::string response = read_until_closed(fd);
    ::close(fd);
    return response;
  }

  server::BoundedHttpServer http_{1024, 300ms};
  int port_ = 0;
  std::thread thread_;
};

TEST_F(BoundedHttpServerTest, OrdinaryRequestsPassAndKeepTheirConnection) {
  httplib::Client client("127.0.0.1", port_);
  client.set_keep_alive(true);
  for (int i = 0; i < 3; ++i) {
    auto res = client.Get("/hello");
    ASSERT_TRUE(res) << i;
    EXPECT_EQ(res->status, 200);
    EXPECT_EQ(res->body, "hi");
  }
  // Two requests on one connection, the second closing it.
  const std::string two = exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_of(two), 200);
  EXPECT_NE(two.find("HTTP/1.1 200", 12), std::string::npos) << two;
}

TEST_F(BoundedHttpServerTest, AHeadOverTheSizeIs414Or431) {
  const std::string long_url = exchange("GET /hello?x=" + std::string(2000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(status_of(long_url), 414);
  EXPECT_EQ(body_of(long_url), R"({"error": "the request's URL is too long"})");

  std::string many_headers = "GET /hello HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 40; ++i) many_headers += "X-" + std::to_string(i) + ": " + std::string(50, 'h') + "\r\n";
  const std::string headers = exchange(many_headers + "\r\n");
  EXPECT_EQ(status_of(headers), 431);
  EXPECT_EQ(body_of(headers), R"({"error": "the request's headers are too large"})");
}

TEST_F(BoundedHttpServerTest, AHeadThatTakesTooLongIs408) {
  // A byte every 50 ms: each arrives well within the read timeout, the head never ends.
  const int fd = connect_to(port_);
  std::thread drip([fd] {
    const std::string head = "GET /hello HTTP/1.1\r\nHost: x\r\nX-Slow: " + std::string(100, 's');
    for (char c : head) {
      if (!send_all(fd, std::string(1, c))) return;
      std::this_thread::sleep_for(50ms);
    }
  });
  const std::string dripped = read_until_closed(fd);
  ::shutdown(fd, SHUT_RDWR);
  drip.join();
  ::close(fd);
  EXPECT_EQ(status_of(dripped), 408) << dripped;
  EXPECT_EQ(body_of(dripped), R"({"error": "the request took too long to arrive"})");

  // Half a head, then nothing.
  const int quiet = connect_to(port_);
  send_all(quiet, "GET /hello HTTP/1.1\r\nHo");
  const std::string stalled = read_until_closed(quiet);
  ::close(quiet);
  EXPECT_EQ(status_of(stalled), 408) << stalled;

  httplib::Client client("127.0.0.1", port_);
  auto res = client.Get("/hello");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

}  // namespace
}  // namespace mlprof::testing
