// Runs the built mlprof binary and captures its exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace mlprof::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::string mlprof_binary() { return std::string(MLPROF_BINARY_DIR) + "/src/cli/mlprof"; }

// `args` is appended to the command line as is (quote paths with spaces yourself).
inline CliResult run_mlprof(const std::string& args) {
  char dir_template[] = "/tmp/mlprof_cli_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  // A bound on every run: a command that never ends fails the test instead of hanging it.
  const std::string cmd = "timeout 120 " + mlprof_binary() + " " + args + " >" + dir + "/out 2>" + dir + "/err";
  CliResult r;
  const int status = std::system(cmd.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(dir + "/out");
  r.err = read_file(dir + "/err");
  std::system(("rm -rf " + dir).c_str());
  return r;
}

}  // namespace mlprof::testing
