// The program `mlprof run` starts, kept as close to it as a shell would: it ends with mlprof
// (a SIGKILL of mlprof leaves no program running on without it), it gets the SIGINT, SIGTERM
// and SIGHUP sent to mlprof, and mlprof waits for it, then ends as it ended.
#pragma once

#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace mlprof::cli {

struct ChildEnd {
  pid_t pid = 0;
  std::string not_started;  // why the program did not start (one line), or ""
  int wait_status = 0;      // waitpid's, once started
};

// Starts `argv` (found on PATH) and waits for it. `before_exec` runs in the child after fork,
// before exec: it sets the child's environment and returns "" or a one-line reason not to
// start the program.
ChildEnd run_child(const std::vector<std::string>& argv, const std::function<std::string()>& before_exec);

// The exit status to give for a program that ended with `wait_status`. A program ended by
// SIGINT, SIGTERM or SIGHUP ends this process by the same signal (the shell then stops a
// script as it would for the program itself), and this does not return.
int end_like(int wait_status);

}  // namespace mlprof::cli
