// A program for `mlprof run` to profile (it gets libmlprof preloaded; it knows nothing of it).
//   run_target wait            prints its pid and "ready", then waits until a signal ends it
//   run_target sleep-ms N      sleeps N ms and exits 0
//   run_target remove LOGDIR   replaces LOGDIR by a file, so its profile cannot be written, and exits 0
//   run_target env NAME        prints the environment variable NAME ("unset" when it is not) and exits 0
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

int main(int argc, char** argv) {
  if (argc < 2) return 64;
  const std::string mode = argv[1];
  if (mode == "wait") {
    std::printf("%d\nready\n", int(getpid()));
    std::fflush(stdout);
    for (;;) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (mode == "sleep-ms" && argc == 3) {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(argv[2])));
    return 0;
  }
  if (mode == "remove" && argc == 3) {
    std::filesystem::remove_all(argv[2]);
    std::ofstream(argv[2]) << "not a directory";
    return 0;
  }
  if (mode == "env" && argc == 3) {
    const char* value = std::getenv(argv[2]);
    std::printf("%s\n", value != nullptr ? value : "unset");
    return 0;
  }
  return 64;
}
