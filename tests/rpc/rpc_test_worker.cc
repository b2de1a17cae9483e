// A worker process for the sampling-mode tests: starts a profiler server on a free port,
// prints "port N" on stdout, and trains (or idles) until its stdin closes, so it never
// outlives the test that started it.
//
//   rpc_test_worker [--idle] [--input-ms N] [--env]
//     --idle        record nothing (the capture is an empty trace)
//     --input-ms N  wait N ms for each batch (default 1): a slower worker
//     --env         do not call start_server: MLPROF_SERVER_PORT starts it
#include <mlprof/mlprof.h>
#include <mlprof/server.h>

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

std::atomic<bool> g_stop{false};

void train(int input_ms) {
  for (int64_t step = 0; !g_stop.load(); ++step) {
    mlprof::StepTrace s("train", step);
    {
      mlprof::Trace next("Iterator::Prefetch");
      std::this_thread::sleep_for(std::chrono::milliseconds(input_ms));
    }
    // "Compute" that sleeps: on a loaded machine a spinning worker's step time would depend on
    // how much CPU it got, and the tests compare workers' step times.
    mlprof::Trace forward("forward");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// Returns when stdin closes (the test ended or died) or after a minute at most.
void wait_for_stdin_to_close() {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  char buffer[64];
  while (std::chrono::steady_clock::now() < give_up) {
    pollfd p{STDIN_FILENO, POLLIN, 0};
    if (poll(&p, 1, 200) > 0 && read(STDIN_FILENO, buffer, sizeof buffer) <= 0) return;
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool idle = false, from_env = false;
  int input_ms = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--idle") == 0) idle = true;
    else if (std::strcmp(argv[i], "--env") == 0) from_env = true;
    else if (std::strcmp(argv[i], "--input-ms") == 0 && i + 1 < argc) input_ms = std::atoi(argv[++i]);
    else return 2;
  }
  if (!from_env) {
    if (const mlprof::Status s = mlprof::start_server(0); !s.ok()) {
      std::fprintf(stderr, "%s\n", s.message().c_str());
      return 1;
    }
  }
  if (mlprof::server_port() == 0) return 1;
  std::printf("port %d\n", mlprof::server_port());
  std::fflush(stdout);

  std::thread trainer;
  if (!idle) trainer = std::thread(train, input_ms);
  wait_for_stdin_to_close();
  g_stop = true;
  if (trainer.joinable()) trainer.join();
  mlprof::stop_server();
  return 0;
}
