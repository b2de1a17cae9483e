// `mlprof serve` as a user runs it: the URL it prints, a clean exit on SIGINT/SIGTERM, and
// one-line errors with exit code 2 for a bad logdir or a port in use.
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_runner.h"
#include "raw_http.h"

namespace fs = std::filesystem;
using mlprof::testing::run_mlprof;

namespace {

// `mlprof serve` running in the background, its output read from a pipe.
class ServeProcess {
 public:
  explicit ServeProcess(const std::string& logdir, const std::string& port = "0",
                        const std::vector<std::string>& extra = {}) {
    int fds[2];
    EXPECT_EQ(pipe(fds), 0);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], STDOUT_FILENO);
      dup2(fds[1], STDERR_FILENO);
      close(fds[0]);
      const std::string bin = mlprof::testing::mlprof_binary();
      std::vector<const char*> argv = {bin.c_str(), "serve", logdir.c_str(), "--port", port.c_str()};
      for (const auto& a : extra) argv.push_back(a.c_str());
      argv.push_back(nullptr);
      execv(bin.c_str(), const_cast<char* const*>(argv.data()));
      _exit(127);
    }
    close(fds[1]);
    out_ = fds[0];
  }
  ~ServeProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    close(out_);
  }

  // Reads output until it holds the URL (empty if the process ends first).
  std::string wait_for_url() {
    const std::regex url(R"(http://127\.0\.0\.1:\d+/)");
    char buf[512];
    std::smatch m;
    while (!std::regex_search(output_, m, url)) {
      const ssize_t n = read(out_, buf, sizeof buf);
      if (n <= 0) return "";
      output_.append(buf, size_t(n));
    }
    return m.str();
  }

  // Sends the signal and returns the exit code (128 + signal when killed by it).
  int stop_with(int sig) {
    kill(pid_, sig);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  const std::string& output() const { return output_; }
  pid_t pid() const { return pid_; }

  // Whether the process is still running (it has not exited nor been killed).
  bool running() { return pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0; }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  std::string output_;
};

class ServeCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    logdir_ = fs::temp_directory_path() / ("mlprof_serve_" + std::to_string(::getpid()) + "_" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(logdir_);
    ASSERT_EQ(std::system((std::string(WRITE_FIXTURE_LOGDIR) + " " + logdir_.string()).c_str()), 0);
  }
  void TearDown() override { fs::remove_all(logdir_); }
  fs::path logdir_;
};

TEST_F(ServeCommand, PrintsTheUrlAndStopsCleanlyOnSigterm) {
  ServeProcess serve(logdir_.string());
  const std::string url = serve.wait_for_url();
  ASSERT_FALSE(url.empty()) << serve.output();
  EXPECT_NE(serve.output().find("2 runs"), std::string::npos) << serve.output();

  httplib::Client client(url.substr(0, url.size() - 1));
  auto res = client.Get("/api/runs");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_NE(res->body.find("input_bound"), std::string::npos);
  EXPECT_EQ(serve.stop_with(SIGTERM), 0);
}

// Whether SIGPIPE is blocked or ignored in every thread of the process: then a write to a
// client that has gone cannot end it.
bool sigpipe_is_harmless_in_every_thread(pid_t pid) {
  const uint64_t bit = uint64_t(1) << (SIGPIPE - 1);
  int threads = 0;
  for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    std::ifstream status(task.path() / "status");
    uint64_t blocked = 0, ignored = 0;
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("SigBlk:", 0) == 0) blocked = std::stoull(line.substr(7), nullptr, 16);
      if (line.rfind("SigIgn:", 0) == 0) ignored = std::stoull(line.substr(7), nullptr, 16);
    }
    if (!(blocked & bit) && !(ignored & bit)) return false;
    ++threads;
  }
  return threads > 0;
}

// Bound beyond loopback, anyone on the network could make the server open connections to any
// address through the Capture dialog: capture is off there unless --allow-capture lists the
// workers, and then only those may be captured from.
TEST_F(ServeCommand, BeyondLoopbackCaptureIsOffUnlessTheWorkersAreListed) {
  const std::string body = R"({"addresses": "127.0.0.1:1", "duration_ms": 10})";
  {
    ServeProcess serve(logdir_.string(), "0", {"--bind", "0.0.0.0"});
    const std::string url = serve.wait_for_url();
    ASSERT_FALSE(url.empty()) << serve.output();
    EXPECT_NE(serve.output().find("the Capture dialog is off"), std::string::npos) << serve.output();
    httplib::Client client(url.substr(0, url.size() - 1));
    auto policy = client.Get("/api/capture");
    ASSERT_TRUE(policy);
    const auto j = nlohmann::json::parse(policy->body);
    EXPECT_EQ(j["enabled"], false);
    const std::string reason = j["reason"];
    if (reason.find("without gRPC") != std::string::npos) GTEST_SKIP() << "built without gRPC: " << reason;
    EXPECT_NE(reason.find("--allow-capture"), std::string::npos) << reason;
    auto refused = client.Post("/api/capture", body, "application/json");
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 403);
    EXPECT_EQ(client.Get("/api/runs")->status, 200);  // reading profiles stays as it is
    EXPECT_EQ(serve.stop_with(SIGTERM), 0);
  }
  ServeProcess serve(logdir_.string(), "0", {"--bind", "0.0.0.0", "--allow-capture", "127.0.0.1:9,grpc://localhost:8"});
  const std::string url = serve.wait_for_url();
  ASSERT_FALSE(url.empty()) << serve.output();
  httplib::Client client(url.substr(0, url.size() - 1));
  const auto j = nlohmann::json::parse(client.Get("/api/capture")->body);
  EXPECT_EQ(j["enabled"], true);
  EXPECT_EQ(j["workers"], nlohmann::json::parse(R"(["127.0.0.1:9", "localhost:8"])"));
  auto refused = client.Post("/api/capture", body, "application/json");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 403);
  EXPECT_NE(refused->body.find("127.0.0.1:1 is not allowed"), std::string::npos) << refused->body;
  EXPECT_EQ(serve.stop_with(SIGTERM), 0);
}

TEST_F(ServeCommand, ClientsThatGoAwayMidResponseDoNotEndIt) {
  ServeProcess serve(logdir_.string());
  const std::string url = serve.wait_for_url();
  ASSERT_FALSE(url.empty()) << serve.output();
  const int port = std::stoi(url.substr(url.rfind(':') + 1));
  EXPECT_TRUE(sigpipe_is_harmless_in_every_thread(serve.pid()));

  // The op table, asked for and dropped after its first bytes, 20 times.
  for (int i = 0; i < 20; ++i) {
    const int fd = mlprof::testing::connect_to(port, 4096);
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(mlprof::testing::send_all(
        fd, "GET /api/data?run=healthy&tool=framework_op_stats&include_idle=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
    char head[12];
    ASSERT_EQ(recv(fd, head, sizeof head, MSG_WAITALL), ssize_t(sizeof head));
    EXPECT_EQ(std::string(head, sizeof head), "HTTP/1.1 200");
    mlprof::testing::close_abruptly(fd);
  }
  httplib::Client client(url.substr(0, url.size() - 1));
  auto res = client.Get("/api/runs");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_TRUE(serve.running());
  EXPECT_EQ(serve.stop_with(SIGTERM), 0);
}

TEST_F(ServeCommand, StopsCleanlyOnSigint) {
  ServeProcess serve(logdir_.string());
  ASSERT_FALSE(serve.wait_for_url().empty()) << serve.output();
  EXPECT_EQ(serve.stop_with(SIGINT), 0);
}

TEST_F(ServeCommand, ServesAnEmptyLogdirAndSaysSo) {
  const fs::path empty = logdir_ / "empty";
  fs::create_directories(empty);
  ServeProcess serve(empty.string());
  ASSERT_FALSE(serve.wait_for_url().empty()) << serve.output();
  EXPECT_EQ(serve.stop_with(SIGTERM), 0);
  EXPECT_NE(serve.output().find("no profile yet"), std::string::npos) << serve.output();
}

TEST_F(ServeCommand, MissingLogdirIsOneLineAndExit2) {
  const auto r = run_mlprof("serve " + (logdir_ / "nope").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "mlprof: " + (logdir_ / "nope").string() + ": no such directory\n");
}

TEST_F(ServeCommand, FileInsteadOfLogdirIsExit2) {
  const auto file = logdir_ / "notes.txt";
  std::ofstream(file) << "not a profile\n";
  const auto r = run_mlprof("serve " + file.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a directory"), std::string::npos) << r.err;
}

TEST_F(ServeCommand, PortInUseIsOneLineAndExit2) {
  ServeProcess first(logdir_.string());
  const std::string url = first.wait_for_url();
  ASSERT_FALSE(url.empty()) << first.output();
  const std::string port = url.substr(url.rfind(':') + 1, url.size() - url.rfind(':') - 2);
  const auto r = run_mlprof("serve " + logdir_.string() + " --port " + port);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("cannot listen on 127.0.0.1:" + port), std::string::npos) << r.err;
}

TEST_F(ServeCommand, BadPortIsAUsageError) {
  EXPECT_EQ(run_mlprof("serve " + logdir_.string() + " --port 70000").exit_code, 1);
}

}  // namespace
