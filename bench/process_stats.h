// What the whole-program benchmarks measure about their own process: CPU time (readable on a
// shared, busy machine where wall time is not), resident memory, and work done in a child
// process so that its memory is gone before the measured part.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>

namespace mlprof::bench {

inline double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

// A field of /proc/self/status in KiB (VmRSS: now, VmHWM: the peak).
inline size_t proc_status_kib(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const std::string key = std::string(field) + ":";
  while (std::getline(f, line))
    if (line.rfind(key, 0) == 0) return size_t(std::strtoull(line.c_str() + key.size(), nullptr, 10));
  return 0;
}

// Lets VmHWM measure the peak of what comes next.
inline void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

// Runs `work` (returning bool) in a forked child and says whether it succeeded.
template <typename Work>
bool run_in_child(Work&& work) {
  const pid_t child = fork();
  if (child == 0) std::_Exit(work() ? 0 : 1);
  int status = 0;
  return child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace mlprof::bench
