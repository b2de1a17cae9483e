// A child program the signal tests start, signal and wait for, with a bounded wait everywhere:
// a test that goes wrong fails, it never hangs.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace mlprof::testing {

class SignalProcess {
 public:
  // Runs argv with `environment` (NAME=VALUE) added; stderr goes to `stderr_path`.
  SignalProcess(const std::vector<std::string>& argv, const std::vector<std::string>& environment,
                const std::string& stderr_path)
      : stderr_path_(stderr_path) {
    int out[2];
    if (pipe(out) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      const int err = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(err, STDERR_FILENO);
      for (const char* name : {"MLPROF_LOGDIR", "MLPROF_STEPS", "MLPROF_DURATION_MS", "MLPROF_RUN_NAME"}) unsetenv(name);
      for (const std::string& e : environment) putenv(const_cast<char*>(e.c_str()));
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
    ::close(out[1]);
    out_ = out[0];
  }
  ~SignalProcess() {
    if (pid_ > 0 && !ended_) {
      ::kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) ::close(out_);
  }

  pid_t pid() const { return pid_; }

  // Whether the child printed `line` on stdout within `timeout`.
  bool wait_for_line(const std::string& line, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (stdout_.find(line + "\n") == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{out_, POLLIN, 0};
      if (poll(&p, 1, int(left.count())) <= 0) return false;
      char buffer[256];
      const ssize_t n = ::read(out_, buffer, sizeof buffer);
      if (n <= 0) return false;
      stdout_.append(buffer, size_t(n));
    }
    return true;
  }

  // All the child printed on stdout, read until it closes it (at most `timeout`).
  std::string all_output(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    wait_for_line("\x01 never printed", timeout);
    return stdout_;
  }

  void send(int signal) const { ::kill(pid_, signal); }

  // waitpid's status, or -1 when the child did not end within `timeout` (it is then killed).
  int wait(std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    for (;;) {
      const pid_t done = waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        ended_ = true;
        return status;
      }
      if (std::chrono::steady_clock::now() >= deadline) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  std::string stderr_text() const {
    std::ifstream in(stderr_path_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  bool ended_ = false;
  std::string stdout_;
  std::string stderr_path_;
};

}  // namespace mlprof::testing
