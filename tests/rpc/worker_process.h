// A worker process (rpc_test_worker) started by a test: its profiler server's port is read
// from its first line of output, so no test sleeps waiting for it. The worker exits when its
// stdin closes; the destructor closes it and, if the worker lingers, kills it (by its pid).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace mlprof::testing {

class WorkerProcess {
 public:
  // Starts the worker with `args` and the extra environment `env` ("NAME=value").
  WorkerProcess(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
    // Everything the child needs is built before fork: after it, only exec-safe calls. The
    // pipes are close-on-exec, so that no other worker holds this one's stdin open.
    std::vector<char*> argv = {const_cast<char*>(RPC_TEST_WORKER)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<char*> envp(env.size());
    for (size_t i = 0; i < env.size(); ++i) envp[i] = const_cast<char*>(env[i].c_str());
    for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
    envp.push_back(nullptr);
    int to_child[2], from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      dup2(to_child[0], STDIN_FILENO);
      dup2(from_child[1], STDOUT_FILENO);
      close(to_child[1]);
      close(from_child[0]);
      execve(argv[0], argv.data(), envp.data());
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    stdin_ = to_child[1];
    stdout_ = from_child[0];
    port_ = read_port();
  }
  ~WorkerProcess() {
    if (stdin_ >= 0) close(stdin_);
    if (stdout_ >= 0) close(stdout_);
    if (pid_ <= 0) return;
    // A generous grace period: a loaded machine may take a while to stop the server.
    for (int i = 0; i < 1000; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill();
  }
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

  // Kills the worker at once (SIGKILL) and reaps it.
  void kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  // The worker's "port N" line; throws when it does not come within 30 s (a loaded machine).
  int read_port() {
    std::string line;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < give_up) {
      pollfd p{stdout_, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char c;
      if (read(stdout_, &c, 1) != 1) break;  // the worker exited
      if (c == '\n') break;
      line += c;
    }
    if (line.rfind("port ", 0) != 0) {
      kill();
      throw std::runtime_error("the worker printed no port (got \"" + line + "\")");
    }
    return std::atoi(line.c_str() + 5);
  }

  pid_t pid_ = -1;
  int stdin_ = -1, stdout_ = -1;
  int port_ = 0;
};

}  // namespace mlprof::testing
