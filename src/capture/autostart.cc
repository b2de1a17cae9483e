// Profiling with no code change: when the library loads with MLPROF_LOGDIR set, a session
// starts, and it is written at process exit (or earlier, when its steps or duration end). A
// program that starts its own session takes over from it (mlprof::start in mlprof.h).
//   MLPROF_LOGDIR=DIR             required
//   MLPROF_STEPS=A:B              record steps A to B only (also "A,B", or "A")
//   MLPROF_DURATION_MS=N          stop after N ms
//   MLPROF_HOST_TRACER_LEVEL=N    0 to 3
// MLPROF_SERVER_PORT (sampling mode) is read by libmlprof_rpc, see mlprof/server.h (this
// library only warns when it is set and libmlprof_rpc is not loaded: server_port_check.cc).
//   MLPROF_RUN_NAME=NAME          the run directory's name (default: the local time)
// The processes of one job write into one run, one file each (capture/job_run.h).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "capture/job_run.h"
#include "capture/run_record.h"
#include "capture/session.h"
#include "format/logdir.h"

namespace mlprof::capture {
namespace {

bool parse_int(const char* text, long long* value) {
  char* end = nullptr;
  errno = 0;
  *value = std::strtoll(text, &end, 10);
  return errno == 0 && end != text && *end == '\0';
}

void warn_ignored(const char* variable, const char* value, const char* expected) {
  std::fprintf(stderr, "mlprof: ignoring %s=%s: expected %s\n", variable, value, expected);
}

// "A:B", "A,B" or "A": the first and last step to record.
bool parse_steps(const char* text, ProfilerOptions* options) {
  std::string s = text;
  const size_t sep = s.find_first_of(":,");
  long long first = 0, last = 0;
  if (!parse_int(s.substr(0, sep).c_str(), &first)) return false;
  last = first;
  if (sep != std::string::npos && !parse_int(s.substr(sep + 1).c_str(), &last)) return false;
  if (first < 0 || last < first) return false;
  options->first_step = first;
  options->last_step = last;
  return true;
}

ProfilerOptions options_from_environment() {
  ProfilerOptions options;
  long long n = 0;
  if (const char* steps = std::getenv("MLPROF_STEPS"); steps != nullptr && *steps != '\0') {
    if (!parse_steps(steps, &options)) warn_ignored("MLPROF_STEPS", steps, "FIRST:LAST, e.g. 10:15");
  }
  if (const char* ms = std::getenv("MLPROF_DURATION_MS"); ms != nullptr && *ms != '\0') {
    if (parse_int(ms, &n) && n >= 0) options.duration_ms = uint64_t(n);
    else warn_ignored("MLPROF_DURATION_MS", ms, "a number of milliseconds");
  }
  if (const char* level = std::getenv("MLPROF_HOST_TRACER_LEVEL"); level != nullptr && *level != '\0') {
    if (parse_int(level, &n) && n >= 0 && n <= 3) options.host_tracer_level = int(n);
    else warn_ignored("MLPROF_HOST_TRACER_LEVEL", level, "0, 1, 2 or 3");
  }
  if (const char* run = std::getenv("MLPROF_RUN_NAME"); run != nullptr && *run != '\0') {
    const std::string name = run;
    if (name.find('/') == std::string::npos && name != "." && name != "..") options.run_name = name;
    else warn_ignored("MLPROF_RUN_NAME", run, "a directory name without '/'");
  }
  return options;
}

void stop_at_exit() { stop_auto_started_session(); }

// Runs when the library is loaded, before main().
[[maybe_unused]] const bool g_auto_started = [] {
  const char* logdir = std::getenv("MLPROF_LOGDIR");
  if (logdir == nullptr || *logdir == '\0') return false;
  ProfilerOptions options = options_from_environment();
  const JobRun job = join_job_run(logdir, format::local_host_name(), &options);
  const Status status = start_session(logdir, options, /*auto_started=*/true, &job);
  if (!status.ok()) {
    std::fprintf(stderr, "mlprof: not profiling: %s\n", status.message().c_str());
    record_run_failed("not profiling: " + status.message());
    return false;
  }
  std::atexit(stop_at_exit);
  return true;
}();

}  // namespace
}  // namespace mlprof::capture
