// The JSON API and the static files, through real HTTP on a free port, with a fake tool
// backend that counts its calls (the analysis itself is tested in tests/analysis).
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "server/profile_server.h"
#include "server/ui_assets.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace mlprof::server;

namespace {

class FakeBackend : public ToolBackend {
 public:
  explicit FakeBackend(std::atomic<int>* calls) : calls_(calls) {}
  std::vector<ToolInfo> tools(const mlprof::format::RunLocation&, const std::string&) override {
    return {{"overview_page", "Overview"}, {"framework_op_stats", "Framework op stats"}};
  }
  std::string json(const ToolQuery& q) override {
    ++*calls_;
    if (q.tool == "broken") throw std::runtime_error("cannot read trainer.xplane.pb: truncated");
    if (q.tool != "overview_page" && q.tool != "framework_op_stats") throw QueryError(400, "unknown tool '" + q.tool + "'");
    nlohmann::json options = nlohmann::json::object();
    for (const auto& [k, v] : q.options) options[k] = v;
    return nlohmann::json{{"run", q.run.name}, {"host", q.host}, {"tool", q.tool}, {"options", options}}.dump();
  }
  std::string csv(const ToolQuery& q) override {
    ++*calls_;
    return "op,self_time_ms\naten::mm,16\n";
  }

 private:
  std::atomic<int>* calls_;
};

class ServerApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    logdir_ = fs::temp_directory_path() / ("mlprof_server_test_" + std::to_string(::getpid()) + "_" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(logdir_);
    add_profile("run_a", "trainer");
    add_profile("run_a", "worker1");
    add_profile("run_b", "trainer");
    server_ = std::make_unique<ProfileServer>(ServeOptions{logdir_.string(), "127.0.0.1", 0},
                                              std::make_unique<FakeBackend>(&calls_));
    std::string error;
    ASSERT_TRUE(server_->bind(&error)) << error;
    thread_ = std::thread([this] { server_->serve(); });
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
  }
  void TearDown() override {
    server_->stop();
    thread_.join();
    fs::remove_all(logdir_);
  }

  void add_profile(const std::string& run, const std::string& host, const std::string& bytes = "x") {
    const fs::path dir = logdir_ / "plugins" / "profile" / run;
    fs::create_directories(dir);
    std::ofstream(dir / (host + ".xplane.pb"), std::ios::binary) << bytes;
  }

  // GET path; checks the status and returns the parsed JSON body.
  json get_json(const std::string& path, int status = 200) {
    auto res = client_->Get(path);
    EXPECT_TRUE(res) << path;
    if (!res) return {};
    EXPECT_EQ(res->status, status) << path << ": " << res->body;
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json") << path;
    return json::parse(res->body);
  }

  fs::path logdir_;
  std::atomic<int> calls_{0};
  std::unique_ptr<ProfileServer> server_;
  std::thread thread_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(ServerApiTest, ListsRunsWithTheirHosts) {
  const json body = get_json("/api/runs");
  ASSERT_EQ(body["runs"].size(), 2u);
  EXPECT_EQ(body["runs"][0]["name"], "run_a");
  EXPECT_EQ(body["runs"][0]["hosts"], json({"trainer", "worker1"}));
  EXPECT_EQ(body["runs"][1]["name"], "run_b");
}

TEST_F(ServerApiTest, NewRunsAppearWithoutRestart) {
  add_profile("run_c", "trainer");
  EXPECT_EQ(get_json("/api/runs")["runs"].size(), 3u);
}

TEST_F(ServerApiTest, ListsHostsAndTools) {
  const json hosts = get_json("/api/runs/run_a/hosts");
  ASSERT_EQ(hosts["hosts"].size(), 2u);
  EXPECT_EQ(hosts["hosts"][1]["name"], "worker1");
  EXPECT_EQ(hosts["hosts"][1]["format"], "xspace");
  const json tools = get_json("/api/runs/run_a/tools?host=trainer");
  EXPECT_EQ(tools["tools"][0]["name"], "overview_page");
  EXPECT_EQ(tools["tools"][0]["title"], "Overview");
}

TEST_F(ServerApiTest, UnknownRunOrHostIs404) {
  EXPECT_EQ(get_json("/api/runs/nope/hosts", 404)["error"], "no run named 'nope'");
  EXPECT_EQ(get_json("/api/runs/run_a/tools?host=nope", 404)["error"], "run 'run_a' has no host named 'nope'");
  EXPECT_EQ(get_json("/api/data?run=nope&tool=overview_page", 404)["error"], "no run named 'nope'");
  EXPECT_EQ(get_json("/api/data?run=run_a&host=nope&tool=overview_page", 404)["error"],
            "run 'run_a' has no host named 'nope'");
  EXPECT_EQ(get_json("/api/nothing", 404)["error"], "no API endpoint /api/nothing");
}

TEST_F(ServerApiTest, MissingParametersAndUnknownToolsAre400) {
  EXPECT_EQ(get_json("/api/data?tool=overview_page", 400)["error"], "missing parameter 'run'");
  EXPECT_EQ(get_json("/api/data?run=run_a", 400)["error"], "missing parameter 'tool'");
  EXPECT_EQ(get_json("/api/data?run=run_a&tool=nope", 400)["error"], "unknown tool 'nope'");
}

TEST_F(ServerApiTest, BackendFailuresAre500WithTheMessage) {
  EXPECT_EQ(get_json("/api/data?run=run_a&tool=broken", 500)["error"], "cannot read trainer.xplane.pb: truncated");
}

TEST_F(ServerApiTest, PassesHostAndOptionsToTheTool) {
  const json body = get_json("/api/data?run=run_a&host=worker1&tool=framework_op_stats&include_idle=1");
  EXPECT_EQ(body["host"], "worker1");
  EXPECT_EQ(body["options"], json({{"include_idle", "1"}}));
}

TEST_F(ServerApiTest, CachesResultsUntilTheProfileChanges) {
  get_json("/api/data?run=run_a&tool=overview_page");
  get_json("/api/data?run=run_a&tool=overview_page");
  EXPECT_EQ(calls_, 1);
  get_json("/api/data?run=run_a&tool=overview_page&include_idle=1");  // other options: other result
  EXPECT_EQ(calls_, 2);
  add_profile("run_a", "trainer", "a longer profile");  // rewritten: size changes
  get_json("/api/data?run=run_a&tool=overview_page");
  EXPECT_EQ(calls_, 3);
}

TEST_F(ServerApiTest, CsvComesAsADownload) {
  auto res = client_->Get("/api/csv?run=run_a&host=trainer&tool=framework_op_stats");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/csv; charset=utf-8");
  EXPECT_EQ(res->get_header_value("Content-Disposition"),
            "attachment; filename=\"run_a_trainer_framework_op_stats.csv\"");
  EXPECT_EQ(res->body, "op,self_time_ms\naten::mm,16\n");
}

TEST_F(ServerApiTest, ServesTheEmbeddedUi) {
  auto res = client_->Get("/");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(res->body.find("<html"), std::string::npos);
  EXPECT_NE(res->get_header_value("Content-Security-Policy").find("default-src 'self'"), std::string::npos);
  for (const auto& asset : ui_assets()) {
    auto r = client_->Get(std::string(asset.path));
    ASSERT_TRUE(r) << asset.path;
    EXPECT_EQ(r->status, 200) << asset.path;
    EXPECT_EQ(r->body.size(), asset.bytes.size()) << asset.path;
  }
}

TEST_F(ServerApiTest, CompressesWithGzipEvenWhenBrotliIsOffered) {
  // Brotli at the HTTP library's setting takes seconds on large op tables; gzip takes ms.
  for (const char* path : {"/api/runs", "/"}) {
    auto res = client_->Get(path, {{"Accept-Encoding", "gzip, deflate, br, zstd"}});
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 200) << path;
    EXPECT_EQ(res->get_header_value("Content-Encoding"), "gzip") << path;
  }
  auto res = client_->Get("/api/runs", {{"Accept-Encoding", "gzip"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(json::parse(res->body)["runs"].size(), 2u);  // the client inflated it
}

TEST_F(ServerApiTest, ServesNoFileFromDisk) {
  // The profiles themselves, and paths that climb out of the logdir, are not files to serve.
  for (const char* path : {"/plugins/profile/run_a/trainer.xplane.pb", "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
                           "/api/runs/..%2F..%2Fetc/hosts"}) {
    auto res = client_->Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 404) << path;
    EXPECT_EQ(res->body.find("root:"), std::string::npos) << path;
  }
}

TEST_F(ServerApiTest, AnswersOnlyToLoopbackHostNames) {
  // DNS rebinding: a page on evil.example resolving to 127.0.0.1 must not read profiles.
  auto res = client_->Get("/api/runs", {{"Host", "evil.example:6006"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 403);
  for (const char* host : {"localhost:1234", "127.0.0.1", "[::1]:80"}) {
    auto ok = client_->Get("/api/runs", {{"Host", host}});
    ASSERT_TRUE(ok) << host;
    EXPECT_EQ(ok->status, 200) << host;
  }
}

TEST(ProfileServer, StopBeforeServeReturnsAtOnce) {
  ProfileServer server(ServeOptions{fs::temp_directory_path().string(), "127.0.0.1", 0},
                       std::make_unique<FakeBackend>(nullptr));
  std::string error;
  ASSERT_TRUE(server.bind(&error)) << error;
  server.stop();
  server.serve();  // returns: the stop came first
}

TEST(ProfileServer, ReportsAPortInUse) {
  ProfileServer first(ServeOptions{fs::temp_directory_path().string(), "127.0.0.1", 0},
                      std::make_unique<FakeBackend>(nullptr));
  std::string error;
  ASSERT_TRUE(first.bind(&error)) << error;
  ProfileServer second(ServeOptions{fs::temp_directory_path().string(), "127.0.0.1", first.port()},
                       std::make_unique<FakeBackend>(nullptr));
  EXPECT_FALSE(second.bind(&error));
  EXPECT_NE(error.find("cannot listen on 127.0.0.1:" + std::to_string(first.port())), std::string::npos) << error;
}

}  // namespace
