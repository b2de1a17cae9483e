// Clients that go away in the middle: one that resets the connection while a large response is
// being written, one that closes before its request is complete. The server must not die of
// SIGPIPE, must not keep a worker on a dead connection, and must go on answering everyone else.
#include <csignal>
#include <vector>

#include "served_fixture.h"

namespace mlprof::testing {
namespace {

constexpr size_t kBigBytes = size_t(32) << 20;

// The analysis backend, with one more tool whose result is 32 MB: far more than the socket
// buffers hold, so the server is still writing when the client goes.
class BigResultBackend : public server::ToolBackend {
 public:
  std::vector<server::ToolInfo> tools(const format::RunLocation& run, const std::string& host) override {
    return inner_->tools(run, host);
  }
  std::string json(const server::ToolQuery& q) override {
    if (q.tool == "big") return "\"" + std::string(kBigBytes - 2, 'x') + "\"";
    return inner_->json(q);
  }
  std::string csv(const server::ToolQuery& q) override { return inner_->csv(q); }

 private:
  std::unique_ptr<server::ToolBackend> inner_ = server::make_analysis_backend();
};

const char kBigRequest[] = "GET /api/data?run=input_bound&tool=big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

class ServerDisconnects : public ServedLogdir {
 protected:
  void SetUp() override {
    ServedLogdir::SetUp();
    start_server(std::make_unique<BigResultBackend>());
    // A process that has not set SIGPIPE aside: the server must not rely on its host program.
    previous_ = std::signal(SIGPIPE, SIG_DFL);
  }
  void TearDown() override {
    ServedLogdir::TearDown();
    std::signal(SIGPIPE, previous_);
  }

  // More clients than the server has workers, all at once: each gets the overview. A worker
  // left on a dead connection would leave some of them without an answer.
  void expect_everyone_served() {
    std::vector<std::thread> threads;
    std::vector<int> statuses(24, 0);
    for (size_t i = 0; i < statuses.size(); ++i) {
      threads.emplace_back([&, i] {
        auto res = make_client(port())->Get("/api/data?run=healthy&tool=overview_page");
        statuses[i] = res ? res->status : -1;
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(statuses, std::vector<int>(statuses.size(), 200));
  }

  void (*previous_)(int) = SIG_DFL;
};

TEST_F(ServerDisconnects, ClientsResettingMidResponseLeaveTheServerServing) {
  for (int i = 0; i < 20; ++i) {
    const int fd = connect_to(port(), 4096);
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(send_all(fd, kBigRequest));
    char head[64];
    ASSERT_EQ(::recv(fd, head, sizeof head, MSG_WAITALL), ssize_t(sizeof head));
    EXPECT_EQ(std::string(head, 12), "HTTP/1.1 200");
    close_abruptly(fd);
  }
  expect_everyone_served();

  // And a client that stays gets all 32 MB.
  auto res = client_->Get("/api/data?run=input_bound&tool=big");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->body.size(), kBigBytes);
}

TEST_F(ServerDisconnects, ClientsClosingMidResponseLeaveTheServerServing) {
  // An orderly close with the response unread: the kernel answers the server's writes with a reset.
  for (int i = 0; i < 20; ++i) {
    const int fd = connect_to(port(), 4096);
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(send_all(fd, kBigRequest));
    char head[16];
    ASSERT_EQ(::recv(fd, head, sizeof head, MSG_WAITALL), ssize_t(sizeof head));
    ::close(fd);
  }
  expect_everyone_served();
}

TEST_F(ServerDisconnects, ClientsClosingBeforeTheRequestEndsLeaveTheServerServing) {
  const std::vector<std::string> partial = {
      "GET /api/data?run=input_bound&tool=overv",
      "GET /api/data?run=input_bound&tool=overview_page HTTP/1.1\r\nHost: 127.0",
      "GET /api/data?run=input_bound&tool=overview_page HTTP/1.1\r\nHost: 127.0.0.1\r\n",
      "POST /api/capture HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: 1000\r\n\r\n{\"addresses\": ",
      "POST /api/capture HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\n\r\n10\r\n{\"addre",
  };
  for (int round = 0; round < 4; ++round) {
    for (const auto& bytes : partial) {
      const int fd = connect_to(port());
      ASSERT_GE(fd, 0);
      ASSERT_TRUE(send_all(fd, bytes));
      if (round % 2) close_abruptly(fd);
      else ::close(fd);
    }
  }
  expect_everyone_served();
}

}  // namespace
}  // namespace mlprof::testing
