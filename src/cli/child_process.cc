#include "cli/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace mlprof::cli {
namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP};
volatile sig_atomic_t g_child = 0;

// A signal a process sent to mlprof goes on to the program. One from the terminal (Ctrl-C,
// a hangup) is not: the kernel sent it to the program too, which is in the same process group.
void forward(int signal, siginfo_t* info, void*) {
  const pid_t child = g_child;
  if (child <= 0 || info == nullptr || info->si_code > 0 || info->si_pid == child) return;
  ::kill(child, signal);
}

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += size_t(n);
  }
}

[[noreturn]] void in_child(const std::vector<std::string>& argv, const std::function<std::string()>& before_exec,
                           pid_t parent, int report_fd) {
  for (int s : kForwarded) ::signal(s, SIG_DFL);
  ::signal(SIGQUIT, SIG_DFL);
  // SIGTERM rather than SIGKILL: the program still writes its profile.
  if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(127);
  std::string why = before_exec();
  if (why.empty()) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    why = "cannot run " + argv[0] + ": " + std::strerror(errno);
  }
  write_all(report_fd, why);  // the pipe closes at exec: empty means it started
  _exit(127);
}

}  // namespace

ChildEnd run_child(const std::vector<std::string>& argv, const std::function<std::string()>& before_exec) {
  ChildEnd end;
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    end.not_started = std::string("cannot start ") + argv[0] + ": " + std::strerror(errno);
    return end;
  }
  // Before fork, so no signal finds mlprof without them; they forward once the child is known.
  struct sigaction forwarding {};
  forwarding.sa_sigaction = forward;
  sigemptyset(&forwarding.sa_mask);
  forwarding.sa_flags = SA_SIGINFO | SA_RESTART;
  for (int s : kForwarded) sigaction(s, &forwarding, nullptr);
  ::signal(SIGQUIT, SIG_IGN);  // Ctrl-\ is the program's; mlprof stays to report
  const pid_t parent = getpid();
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) {
    end.not_started = "cannot start " + argv[0] + ": " + std::strerror(errno);
    ::close(report[0]);
    ::close(report[1]);
    return end;
  }
  if (child == 0) in_child(argv, before_exec, parent, report[1]);
  g_child = child;
  end.pid = child;
  ::close(report[1]);
  char buffer[512];
  for (;;) {
    const ssize_t n = ::read(report[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    end.not_started.append(buffer, size_t(n));
  }
  ::close(report[0]);
  while (waitpid(child, &end.wait_status, 0) < 0 && errno == EINTR) {
  }
  g_child = 0;
  return end;
}

int end_like(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (!WIFSIGNALED(wait_status)) return 1;
  const int signal = WTERMSIG(wait_status);
  for (int s : kForwarded) {
    if (s != signal) continue;
    std::fflush(nullptr);
    ::signal(signal, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signal);
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    ::kill(getpid(), signal);
  }
  return 128 + signal;
}

}  // namespace mlprof::cli
