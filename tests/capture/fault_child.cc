// A profiled program that meets a fault; the fault test runs it and reads what it wrote.
//   fault_child exit LOGDIR         exit() with a session running
//   fault_child return LOGDIR       return from main() with a session running
//   fault_child exit-thread LOGDIR  exit() from another thread with a session running
//   fault_child quick-exit LOGDIR   quick_exit() with a session running
//   fault_child exit-logdir-gone LOGDIR
//                                   exit() with a session running whose logdir became a file
//   fault_child unwritable LOGDIR GOOD_LOGDIR
//                                   start() refuses LOGDIR; then a session into GOOD_LOGDIR
//   fault_child logdir-gone LOGDIR GOOD_LOGDIR
//                                   LOGDIR becomes a file during the session, so stop() cannot
//                                   write it; then a session into GOOD_LOGDIR
//   fault_child file-limit LOGDIR GOOD_LOGDIR ignore|default
//                                   a file size limit (ulimit -f) the profile exceeds, with
//                                   SIGXFSZ ignored or left to end the program; then a small
//                                   session into GOOD_LOGDIR
//   fault_child profile-unwritable LOGDIR
//                                   an mlprof::Profile that cannot start; the program goes on
//   fault_child profile-logdir-gone LOGDIR
//                                   an mlprof::Profile whose logdir becomes a file
// It prints what stop() said and "done" when it reaches the end of main().
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include "mlprof/mlprof.h"

namespace {

mlprof::ProfilerOptions options(const char* run_name) {
  mlprof::ProfilerOptions o;
  o.run_name = run_name;
  o.host_name = "child";
  return o;
}

// 500 "main_work" events on the calling thread.
void annotate() {
  for (int i = 0; i < 500; ++i) MLPROF_TRACE("main_work");
}

// A thread that annotates until the process ends, never joined.
void start_background_writer() {
  std::thread([] {
    mlprof::set_thread_name("background");
    for (;;) {
      MLPROF_TRACE("background_work");
      std::this_thread::yield();
    }
  }).detach();
}

void print_stop(const char* what, const mlprof::RunInfo& run) {
  std::printf("%s: %s (%llu events)\n", what, run.status.ok() ? "ok" : run.status.message().c_str(),
              static_cast<unsigned long long>(run.events));
}

// The logdir, writable at start, is replaced by a file: the run cannot be written at the end.
bool replace_logdir_by_a_file(const char* logdir) {
  std::error_code ec;
  if (std::filesystem::remove_all(logdir, ec) == 0 || ec) return false;
  std::FILE* f = std::fopen(logdir, "w");
  return f != nullptr && std::fclose(f) == 0;
}

// After a failed write: the program annotates on and can profile again.
int profile_again(const char* good_logdir) {
  annotate();
  if (!mlprof::start(good_logdir, options("again")).ok()) return 3;
  for (int i = 0; i < 10; ++i) MLPROF_TRACE("again_work");
  print_stop("again", mlprof::stop());
  std::printf("done\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const std::string mode = argv[1];
  const char* logdir = argv[2];
  if (mode == "exit" || mode == "return" || mode == "exit-thread" || mode == "quick-exit") {
    if (!mlprof::start(logdir, options("at_exit")).ok()) return 3;
    start_background_writer();
    annotate();
    std::fflush(stdout);
    if (mode == "exit") std::exit(0);
    if (mode == "quick-exit") std::quick_exit(0);
    if (mode == "exit-thread") {
      std::thread([] { std::exit(0); }).detach();
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));  // ended by that exit()
    }
    return 0;
  }
  if (mode == "exit-logdir-gone") {
    if (!mlprof::start(logdir, options("at_exit")).ok()) return 3;
    if (!replace_logdir_by_a_file(logdir)) return 4;
    annotate();
    std::exit(0);
  }
  if (mode == "unwritable" && argc == 4) {
    const mlprof::Status started = mlprof::start(logdir, options("unwritable"));
    std::printf("start: %s\n", started.ok() ? "ok" : started.message().c_str());
    if (started.ok()) return 3;
    return profile_again(argv[3]);
  }
  if (mode == "logdir-gone" && argc == 4) {
    if (!mlprof::start(logdir, options("logdir_gone")).ok()) return 3;
    if (!replace_logdir_by_a_file(logdir)) return 4;
    annotate();
    print_stop("stop", mlprof::stop());
    return profile_again(argv[3]);
  }
  if (mode == "profile-unwritable" || mode == "profile-logdir-gone") {
    {
      mlprof::Profile profile(logdir, options("profile"));
      std::printf("status: %s\n", profile.status().ok() ? "ok" : "failed");
      if (mode == "profile-logdir-gone" && !replace_logdir_by_a_file(logdir)) return 4;
      annotate();
    }
    std::printf("done\n");
    return 0;
  }
  if (mode == "file-limit" && argc == 5) {
    if (std::strcmp(argv[4], "ignore") == 0) std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{64 * 1024, 64 * 1024};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return 4;
    if (!mlprof::start(logdir, options("too_big")).ok()) return 3;
    for (int i = 0; i < 20; ++i) annotate();  // 10000 events: more than 64 KiB
    print_stop("stop", mlprof::stop());
    return profile_again(argv[3]);
  }
  return 2;
}
