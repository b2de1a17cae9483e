// A program that knows nothing of profiling sessions: it only annotates. The autostart test
// runs it with MLPROF_* variables set. With the arguments "start LOGDIR", it profiles its steps
// in a session of its own and prints what start() and stop() said.
#include <cstdio>
#include <cstring>

#include "mlprof/mlprof.h"

void train() {
  for (int step = 0; step < 6; ++step) {
    mlprof::StepTrace s("train", step);
    MLPROF_TRACE("work");
  }
}

int main(int argc, char** argv) {
  if (argc > 2 && std::strcmp(argv[1], "start") == 0) {
    const mlprof::Status status = mlprof::start(argv[2]);
    std::printf("start: %s\n", status.ok() ? "ok" : status.message().c_str());
    train();
    if (status.ok()) {
      const mlprof::RunInfo run = mlprof::stop();
      std::printf("stop: %s\n", run.status.ok() ? run.xspace_path.c_str() : run.status.message().c_str());
    }
  } else {
    train();
  }
  std::printf("active: %d\n", mlprof::is_active() ? 1 : 0);
  return 0;
}
