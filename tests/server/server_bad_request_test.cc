// Requests no browser sends: megabytes of URL or header, a huge body, unknown methods, bytes
// that are not HTTP, broken percent-encoding, absurd numbers. Each gets a 4xx answer (never a
// 5xx or a dropped server), and the server answers the next client as before.
#include <vector>

#include "served_fixture.h"

namespace mlprof::testing {
namespace {

using nlohmann::json;

class ServerBadRequests : public ServedLogdir {
 protected:
  void SetUp() override {
    ServedLogdir::SetUp();
    start_server();
  }
  void TearDown() override {
    expect_still_serving();
    ServedLogdir::TearDown();
  }

  // Sends raw bytes, then reads the answer until the server closes the connection.
  std::string exchange(const std::string& bytes, bool end_request_stream = false) {
    const int fd = connect_to(port());
    EXPECT_GE(fd, 0);
    send_all(fd, bytes);  // the server may stop reading (and answer) before the end
    if (end_request_stream) ::shutdown(fd, SHUT_WR);
    const std::string response = read_until_closed(fd);
    ::close(fd);
    return response;
  }

  void expect_still_serving() {
    const json runs = get_json("/api/runs", 200);
    EXPECT_EQ(runs["runs"].size(), 2u);
  }
};

const std::string kEnd = " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";

TEST_F(ServerBadRequests, MegabytesOfUrlAre414) {
  // The server stops reading at its limit (httplib alone would read the whole line first).
  const std::string response = exchange("GET /api/data?run=" + std::string(4 << 20, 'a') + kEnd);
  EXPECT_EQ(status_of(response), 414) << response.substr(0, 200);
  EXPECT_EQ(json::parse(body_of(response))["error"], "the request's URL is too long");
  // Over httplib's own limit of 8 KB a line, under the server's for the whole head.
  const std::string over_8k = exchange("GET /api/data?run=" + std::string(20000, 'a') + kEnd);
  EXPECT_EQ(status_of(over_8k), 414);
  EXPECT_EQ(json::parse(body_of(over_8k))["error"], "the request's URL is too long");
}

TEST_F(ServerBadRequests, MegabytesOfHeadersAre431) {
  const std::string one_header = "GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + std::string(4 << 20, 'b') +
                                 "\r\nConnection: close\r\n\r\n";
  const std::string response = exchange(one_header);
  EXPECT_EQ(status_of(response), 431) << response.substr(0, 200);
  EXPECT_EQ(json::parse(body_of(response))["error"], "the request's headers are too large");

  std::string many_headers = "GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (int i = 0; i < 50000; ++i) many_headers += "X-H" + std::to_string(i) + ": " + std::string(80, 'h') + "\r\n";
  many_headers += "Connection: close\r\n\r\n";
  // 50000 headers of 8 KB at most each: httplib alone would keep them all.
  EXPECT_EQ(status_of(exchange(many_headers)), 431);
}

TEST_F(ServerBadRequests, AHugeBodyIs413AndOneWithoutALength411) {
  // 64 MB announced, all of it sent: the server reads no more than its limit into memory.
  const std::string head =
      "POST /api/capture HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: " + std::to_string(64 << 20) + "\r\nConnection: close\r\n\r\n";
  const std::string response = exchange(head + "[" + std::string((64 << 20) - 1, ' '));
  EXPECT_EQ(status_of(response), 413) << response.substr(0, 200);

  // The same, chunked: without a length up front the server would read it all before routing.
  std::string chunked =
      "POST /api/capture HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
  const std::string chunk = std::string(1 << 20, ' ');
  for (int i = 0; i < 16; ++i) chunked += "100000\r\n" + chunk + "\r\n";
  chunked += "0\r\n\r\n";
  const std::string chunked_response = exchange(chunked);
  EXPECT_EQ(status_of(chunked_response), 411) << chunked_response.substr(0, 200);
}

TEST_F(ServerBadRequests, UnknownMethodsAndGarbageAre4xx) {
  EXPECT_EQ(status_of(exchange("FOO /api/runs" + kEnd)), 400);
  EXPECT_EQ(status_of(exchange("GET" + kEnd)), 400);
  EXPECT_EQ(status_of(exchange("GET /api/runs HTTP/9.9\r\n\r\n")), 400);
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage += char((i * 131 + 7) % 256);
  const std::string garbled = exchange(garbage + "\r\n\r\n");
  EXPECT_EQ(status_of(garbled), 400);
  EXPECT_EQ(json::parse(body_of(garbled))["error"], "malformed request");
  EXPECT_EQ(status_of(exchange(std::string(100, '\0') + "\r\n\r\n")), 400);
  // Methods the API does not take: refused at once, not after waiting for a body.
  for (const char* method : {"DELETE", "PUT", "PATCH", "OPTIONS"}) {
    const std::string response = exchange(std::string(method) + " /api/runs" + kEnd);
    EXPECT_EQ(status_of(response), 405) << method;
    EXPECT_NE(response.find("Allow: GET, HEAD, POST\r\n"), std::string::npos) << method << ": " << response;
  }
  EXPECT_EQ(status_of(exchange("GET /api/no-such-endpoint" + kEnd)), 404);
  // GET /api/capture is an endpoint of its own (whether capture is allowed, and from whom).
  EXPECT_EQ(status_of(exchange("GET /api/capture" + kEnd)), 200);
}

TEST_F(ServerBadRequests, ASmallPostReachesTheCaptureEndpoint) {
  // The capture dialog's request, with no worker listening: the endpoint itself answers.
  auto res = client_->Post("/api/capture", R"({"addresses": "127.0.0.1:1", "duration_ms": 0})", "application/json");
  ASSERT_TRUE(res);
  const json body = json::parse(res->body);
  if (res->status == 501) GTEST_SKIP() << "built without gRPC: " << body["error"];
  EXPECT_EQ(res->status, 400) << res->body;
  EXPECT_EQ(body["error"], "'duration_ms' must be a whole number from 1 to 600000");
}

TEST_F(ServerBadRequests, APostWithoutAUsableLengthIsRefusedBeforeItsBody) {
  const std::string head = "POST /api/capture HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
  // No length: httplib would read until the client closes.
  const std::string unlengthed = exchange(head + "\r\n{\"addresses\": \"a:1\"}");  // the server closes after it
  EXPECT_EQ(status_of(unlengthed), 411);
  EXPECT_EQ(json::parse(body_of(unlengthed))["error"], "send the request body with a Content-Length");
  EXPECT_EQ(status_of(exchange(head + "Content-Length: 12abc\r\nConnection: close\r\n\r\n{}")), 400);
  EXPECT_EQ(status_of(exchange(head + "Content-Length: -1\r\nConnection: close\r\n\r\n{}")), 400);
  EXPECT_EQ(status_of(exchange(head + "Content-Length: 99999999999999999999999\r\nConnection: close\r\n\r\n{}")), 400);
}

TEST_F(ServerBadRequests, BrokenPercentEncodingIsAnErrorInJson) {
  EXPECT_EQ(get_json("/api/data?run=%zz%&tool=overview_page%g", 404)["error"], "no run named '%zz%'");
  EXPECT_EQ(get_json("/api/data?run=input_bound%&tool=overview_page", 404)["error"], "no run named 'input_bound%'");
  // Bytes that are not UTF-8 come back replaced in the JSON error, not as a server error.
  EXPECT_EQ(get_json("/api/runs/%ff%fe/hosts", 404)["error"], "no run named '\xEF\xBF\xBD\xEF\xBF\xBD'");
  EXPECT_EQ(get_json("/api/data?run=%c3%28&tool=overview_page", 404)["error"], "no run named '\xEF\xBF\xBD('");
  EXPECT_EQ(get_json("/api/data?run=input_bound&tool=%ff", 400)["error"].get<std::string>().substr(0, 18),
            "unknown tool '\xEF\xBF\xBD'");
  EXPECT_EQ(get_json("/api/data?run=%00&tool=overview_page", 404)["error"], std::string("no run named '\0'", 16));
}

TEST_F(ServerBadRequests, AbsurdNumbersAre400) {
  for (const char* max_ops : {"-1", "0", "1e12", "99999999999999999999999", "nan", "12abc", ""}) {
    auto res = client_->Get(std::string("/api/diff?run_a=healthy&run_b=input_bound&max_ops=") + max_ops);
    ASSERT_TRUE(res) << max_ops;
    EXPECT_EQ(res->status, std::string(max_ops).empty() ? 200 : 400) << max_ops << ": " << res->body;
  }
  for (const char* flag : {"2", "-1", "99999999999999999999", "yes"})
    get_json(std::string("/api/data?run=input_bound&tool=framework_op_stats&include_idle=") + flag, 400);
}

TEST_F(ServerBadRequests, AbsurdTraceViewportsAre400OrClamped) {
  // Each is refused with a 4xx or answered with a viewport inside the trace; none may take
  // the server down or allocate by the requested width.
  for (const char* query : {"start_ps=-5", "end_ps=-1", "start_ps=99999999999999999999999", "end_ps=1e300",
                            "start_ps=500&end_ps=100", "width_px=1e12", "width_px=1000000000000", "width_px=-1",
                            "width_px=0", "width_px=nan", "start_ps=abc", "start_ps=9223372036854775807&end_ps=9223372036854775807"}) {
    auto res = client_->Get(std::string("/api/trace?run=input_bound&") + query);
    ASSERT_TRUE(res) << query;
    EXPECT_TRUE(res->status == 200 || res->status == 400) << query << ": " << res->status << " " << res->body.substr(0, 200);
    const json body = json::parse(res->body, nullptr, false);
    ASSERT_FALSE(body.is_discarded()) << query;
    if (res->status == 200) {
      EXPECT_LE(body["width_px"].get<double>(), 100000) << query;
    }
    if (res->status == 400) {
      EXPECT_TRUE(body.contains("error")) << query;
    }
  }
  for (const char* query : {"event=-1", "event=99999999999999999999", "event=abc", "event="}) {
    auto res = client_->Get(std::string("/api/trace/event?run=input_bound&") + query);
    ASSERT_TRUE(res) << query;
    EXPECT_TRUE(res->status == 400 || res->status == 404) << query << ": " << res->status << " " << res->body;
  }
  for (const char* query : {"q=aten&limit=-1", "q=aten&limit=1e12", "q=aten&limit=99999999999999999999"}) {
    auto res = client_->Get(std::string("/api/trace/search?run=input_bound&") + query);
    ASSERT_TRUE(res) << query;
    EXPECT_TRUE(res->status == 200 || res->status == 400) << query << ": " << res->status << " " << res->body;
  }
}

}  // namespace
}  // namespace mlprof::testing
