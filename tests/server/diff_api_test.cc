// GET /api/diff over the fixture logdir (write_fixture_logdir), with the real analysis behind
// it, through real HTTP; and that no query parameter (run, host, tool option) can name a file
// outside the logdir; and that the server listens on the loopback address unless told not to.
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "server/profile_server.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace mlprof::server;

namespace {

class DiffApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    logdir_ = new fs::path(fs::temp_directory_path() / ("mlprof_diff_api_test_" + std::to_string(::getpid())));
    fs::remove_all(*logdir_);
    const std::string command = std::string(WRITE_FIXTURE_LOGDIR) + " '" + logdir_->string() + "'";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    // A file beside the logdir that no URL may read.
    secret_ = new fs::path(logdir_->parent_path() / ("mlprof_diff_api_secret_" + std::to_string(::getpid()) + ".txt"));
    FILE* f = std::fopen(secret_->c_str(), "w");
    std::fputs("SECRET-CONTENT", f);
    std::fclose(f);
  }
  static void TearDownTestSuite() {
    fs::remove_all(*logdir_);
    fs::remove(*secret_);
    delete logdir_;
    delete secret_;
  }

  void SetUp() override {
    server_ = std::make_unique<ProfileServer>(ServeOptions{logdir_->string(), "127.0.0.1", 0}, make_analysis_backend());
    std::string error;
    ASSERT_TRUE(server_->bind(&error)) << error;
    thread_ = std::thread([this] { server_->serve(); });
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
  }
  void TearDown() override {
    server_->stop();
    thread_.join();
  }

  httplib::Result get(const std::string& path) { return client_->Get(path); }

  json get_json(const std::string& path, int status) {
    auto res = get(path);
    EXPECT_TRUE(res) << path;
    if (!res) return {};
    EXPECT_EQ(res->status, status) << path << ": " << res->body;
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json") << path;
    return json::parse(res->body, nullptr, false);
  }

  static const json* find_op(const json& diff, const std::string& name) {
    for (const auto& op : diff["ops"])
      if (op["name"] == name) return &op;
    return nullptr;
  }

  static fs::path* logdir_;
  static fs::path* secret_;
  std::unique_ptr<ProfileServer> server_;
  std::thread thread_;
  std::unique_ptr<httplib::Client> client_;
};

fs::path* DiffApiTest::logdir_ = nullptr;
fs::path* DiffApiTest::secret_ = nullptr;

// Every byte but letters and digits as %XX, so '/' and '.' reach the server as parameter text.
std::string percent_encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c)) out += char(c);
    else out += {'%', hex[c >> 4], hex[c & 15]};
  }
  return out;
}

TEST_F(DiffApiTest, ComparesTwoRuns) {
  // healthy waits 2 to 6 ms per step for input, input_bound 60 to 64 ms.
  const json d = get_json("/api/diff?run_a=healthy&host_a=trainer&run_b=input_bound", 200);
  EXPECT_EQ(d["a"]["name"], "healthy / trainer");
  EXPECT_EQ(d["b"]["name"], "input_bound");
  EXPECT_EQ(d["a"]["steps"], 10);  // the overview's count: the capture cuts none of the 10 steps
  EXPECT_EQ(d["b"]["steps"], 10);
  EXPECT_NEAR(d["step_time_ms"]["a"].get<double>(), 102, 1.5);
  EXPECT_NEAR(d["step_time_ms"]["b"].get<double>(), 102, 1.5);
  EXPECT_GT(d["breakdown_ms"]["input"]["change_ms"].get<double>(), 50);

  const json* prefetch = find_op(d, "Iterator::Prefetch");
  ASSERT_TRUE(prefetch) << d.dump(2);
  EXPECT_EQ((*prefetch)["status"], "slower");
  EXPECT_NEAR((*prefetch)["change_ms"].get<double>(), 58, 1);
  const json* mm = find_op(d, "aten::mm");
  ASSERT_TRUE(mm) << d.dump(2);
  EXPECT_EQ((*mm)["status"], "faster");
  EXPECT_NEAR((*mm)["a_self_time_per_step_ms"].get<double>(), 45, 0.01);
  EXPECT_NEAR((*mm)["b_self_time_per_step_ms"].get<double>(), 16, 0.01);
}

TEST_F(DiffApiTest, MissingParametersAre400AndUnknownRunsOrHosts404) {
  EXPECT_EQ(get_json("/api/diff", 400)["error"], "missing parameter 'run_a'");
  EXPECT_EQ(get_json("/api/diff?run_a=healthy", 400)["error"], "missing parameter 'run_b'");
  EXPECT_EQ(get_json("/api/diff?run_a=nope&run_b=healthy", 404)["error"], "no run named 'nope'");
  EXPECT_EQ(get_json("/api/diff?run_a=healthy&run_b=healthy&host_b=nope", 404)["error"],
            "run 'healthy' has no host named 'nope'");
  get_json("/api/diff?run_a=healthy&run_b=input_bound&max_ops=x", 400);
}

TEST_F(DiffApiTest, NoParameterReadsOutsideTheLogdir) {
  const std::string secret = percent_encode(secret_->string());
  const std::string secret_name = secret_->filename().string();
  const std::string up = "..%2F" + secret_name;
  const std::string up_run = "..%2F..%2F..%2F" + secret_name;
  const std::vector<std::string> paths = {
           "/api/diff?run_a=" + up_run + "&run_b=healthy",
           "/api/diff?run_a=" + secret + "&run_b=healthy",
           "/api/diff?run_a=..&run_b=..",
           "/api/diff?run_a=healthy&host_a=" + up + "&run_b=healthy",
           "/api/diff?run_a=healthy&host_a=%2Fetc%2Fpasswd&run_b=healthy",
           "/api/data?run=" + up_run + "&tool=overview_page",
           "/api/data?run=" + secret + "&tool=overview_page",
           "/api/data?run=healthy&host=" + up + "&tool=overview_page",
           "/api/data?run=healthy&host=%2Fetc%2Fpasswd&tool=overview_page",
           "/api/data?run=input_bound&tool=" + up,
           "/api/data?run=input_bound&tool=framework_op_stats&include_idle=" + secret,
           "/api/data?run=input_bound&tool=overview_page&file=" + secret,
           "/api/csv?run=" + up_run + "&tool=framework_op_stats",
           "/api/csv?run=input_bound&tool=framework_op_stats&path=" + secret,
           "/api/runs/..%2F..%2F" + secret_name + "/tools",
           "/api/runs/input_bound/tools?host=" + up,
           "/api/runs/input_bound/tools?host=" + secret,
           "/api/trace?run=" + up_run,
           "/api/trace?run=input_bound&host=" + secret,
           "/api/trace/search?run=" + secret + "&q=SECRET",
  };
  for (const std::string& path : paths) {
    auto res = get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_TRUE(res->status == 400 || res->status == 404) << path << ": " << res->status << " " << res->body;
    EXPECT_EQ(res->body.find("SECRET-CONTENT"), std::string::npos) << path;
    EXPECT_EQ(res->body.find("root:"), std::string::npos) << path;
  }
}

TEST(ServeDefaults, BindsTheLoopbackAddress) {
  EXPECT_EQ(ServeOptions{}.bind, "127.0.0.1");
  ServeOptions options;
  options.logdir = fs::temp_directory_path().string();
  options.port = 0;
  ProfileServer server(options, make_analysis_backend());
  std::string error;
  ASSERT_TRUE(server.bind(&error)) << error;
  EXPECT_EQ(server.url().rfind("http://127.0.0.1:", 0), 0u) << server.url();
  // Reachable on 127.0.0.1.
  std::thread t([&] { server.serve(); });
  httplib::Client client("127.0.0.1", server.port());
  auto res = client.Get("/api/runs");
  server.stop();
  t.join();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

}  // namespace
