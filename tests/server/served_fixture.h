// The server fault tests' setting: a ProfileServer on 127.0.0.1 (an ephemeral port) over a
// fresh copy of the fixture logdir (write_fixture_logdir: runs input_bound and healthy).
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "raw_http.h"
#include "server/profile_server.h"

namespace mlprof::testing {

// A client that gives up instead of hanging: a deadlocked server fails the test.
inline std::unique_ptr<httplib::Client> make_client(int port) {
  auto client = std::make_unique<httplib::Client>("127.0.0.1", port);
  client->set_connection_timeout(20);
  client->set_read_timeout(30);
  client->set_write_timeout(30);
  return client;
}

class ServedLogdir : public ::testing::Test {
 protected:
  void SetUp() override {
    logdir_ = std::filesystem::temp_directory_path() /
              ("mlprof_server_faults_" + std::to_string(::getpid()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(logdir_);
    const std::string command = std::string(WRITE_FIXTURE_LOGDIR) + " '" + logdir_.string() + "'";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
  }
  void TearDown() override {
    stop_server();
    std::filesystem::remove_all(logdir_);
  }

  // Serves the logdir with `backend` (the real analysis unless a test brings its own).
  void start_server(std::unique_ptr<server::ToolBackend> backend = server::make_analysis_backend()) {
    server_ = std::make_unique<server::ProfileServer>(server::ServeOptions{logdir_.string(), "127.0.0.1", 0},
                                                      std::move(backend));
    std::string error;
    ASSERT_TRUE(server_->bind(&error)) << error;
    thread_ = std::thread([this] { server_->serve(); });
    client_ = make_client(server_->port());
  }
  // Stops the server; one that cannot stop (a worker deadlocked) ends the test program with a
  // message rather than hanging it.
  void stop_server() {
    if (!server_) return;
    auto stopped = std::async(std::launch::async, [this] {
      server_->stop();
      thread_.join();
    });
    if (stopped.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
      std::fprintf(stderr, "the server did not stop within 60 s: a worker is stuck\n");
      std::_Exit(1);
    }
    server_.reset();
  }

  std::filesystem::path run_dir(const std::string& run) const { return logdir_ / "plugins" / "profile" / run; }

  // GET path; checks the status and the JSON type and returns the parsed body (null if not JSON).
  nlohmann::json get_json(const std::string& path, int status) {
    auto res = client_->Get(path);
    EXPECT_TRUE(res) << path << ": " << httplib::to_string(res.error());
    if (!res) return {};
    EXPECT_EQ(res->status, status) << path << ": " << res->body;
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json") << path;
    return nlohmann::json::parse(res->body, nullptr, false);
  }

  int port() const { return server_->port(); }

  std::filesystem::path logdir_;
  std::unique_ptr<server::ProfileServer> server_;
  std::thread thread_;
  std::unique_ptr<httplib::Client> client_;
};

}  // namespace mlprof::testing
