// A profiled program that a signal ends; the signal test runs it and reads what it wrote.
//   signal_child program LOGDIR       mlprof::start, then annotates until a signal ends it
//   signal_child environment          the session MLPROF_LOGDIR started; the same
//   signal_child own-handler LOGDIR   mlprof::start; the program handles SIGTERM itself and
//                                     returns from main()
//   signal_child big LOGDIR           mlprof::start, a capture that takes a while to write
//   signal_child named LOGDIR RUN     start() with run_name RUN; 300 ms later stop()
// Each records 1000 "before_signal" events, then prints "ready" and annotates on, 1 ms apart.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "mlprof/mlprof.h"

namespace {

std::atomic<bool> g_stop{false};

mlprof::ProfilerOptions options(const char* run_name = "") {
  mlprof::ProfilerOptions o;
  o.run_name = run_name;
  o.host_name = "child";
  return o;
}

[[noreturn]] void ready_then_annotate() {
  for (int i = 0; i < 1000; ++i) MLPROF_TRACE("before_signal");
  std::printf("ready\n");
  std::fflush(stdout);
  for (;;) {
    MLPROF_TRACE("after_signal");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string mode = argv[1];
  if (mode == "environment") ready_then_annotate();
  if (argc < 3) return 2;
  const char* logdir = argv[2];
  if (mode == "program") {
    if (!mlprof::start(logdir, options()).ok()) return 3;
    ready_then_annotate();
  }
  if (mode == "big") {
    mlprof::ProfilerOptions o = options();
    o.max_buffer_bytes = uint64_t{2} << 30;
    if (!mlprof::start(logdir, o).ok()) return 3;
    for (int i = 0; i < 4'000'000; ++i) MLPROF_TRACE("bulk");
    ready_then_annotate();
  }
  if (mode == "own-handler") {
    std::signal(SIGTERM, [](int) { g_stop.store(true); });
    if (!mlprof::start(logdir, options()).ok()) return 3;
    for (int i = 0; i < 1000; ++i) MLPROF_TRACE("before_signal");
    std::printf("ready\n");
    std::fflush(stdout);
    while (!g_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return 0;
  }
  if (mode == "named" && argc == 4) {
    const mlprof::Status started = mlprof::start(logdir, options(argv[3]));
    std::printf("start: %s\n", started.ok() ? "ok" : started.message().c_str());
    if (!started.ok()) return 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    for (int i = 0; i < 10; ++i) MLPROF_TRACE("named_work");
    const mlprof::RunInfo run = mlprof::stop();
    std::printf("stop: %s\n", run.status.ok() ? "ok" : run.status.message().c_str());
    return 0;
  }
  return 2;
}
