// A program that knows nothing of profiling sessions: it only annotates. The autostart test
// runs it with MLPROF_* variables set. With the argument "start", it also tries to start a
// session of its own and prints what start() said.
#include <cstdio>
#include <cstring>

#include "mlprof/mlprof.h"

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "start") == 0) {
    const mlprof::Status status = mlprof::start("unused-logdir");
    std::printf("start: %s\n", status.ok() ? "ok" : status.message().c_str());
    if (status.ok()) mlprof::stop();
  }
  for (int step = 0; step < 6; ++step) {
    mlprof::StepTrace s("train", step);
    MLPROF_TRACE("work");
  }
  std::printf("active: %d\n", mlprof::is_active() ? 1 : 0);
  return 0;
}
