// A small training-like program instrumented with mlprof, to copy from.
//
//   loader thread:  read records -> decode/augment -> batch -> queue (the input pipeline)
//   train thread:   per step: take the next batch, forward, backward, optimizer update
//
// The loader's stages carry tf.data-style long names (Iterator::Prefetch::Map::FileRead:
// consumers first, the stage's own type last) so mlprof's input pipeline tools understand
// them. --slow-input makes reading slower than a step, so the run becomes input-bound.
// --server-port starts a profiler server instead of a session (sampling mode): capture it
// while it trains with `mlprof capture localhost:PORT --logdir L --duration-ms N`.
#include <mlprof/mlprof.h>
#ifdef MLPROF_EXAMPLE_HAS_SERVER
#include <mlprof/server.h>
#endif

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "batch_queue.h"

namespace {

struct Options {
  std::string logdir = "demo-logdir";
  int steps = 30;
  bool slow_input = false;
  int64_t first_step = -1, last_step = -1;  // --profile-steps A:B
  std::string run_name;                      // default: the local time
  int server_port = -1;                      // --server-port N: sampling mode (0: any free port)
};

struct Batch {
  int64_t index;
  std::vector<float> values;
};

constexpr int kBatchSize = 64;
constexpr int kFeatures = 256;
constexpr int kHidden = 256;

// Burns CPU on a real computation for about `ms` milliseconds.
float spin_matmul(const std::vector<float>& x, std::vector<float>& w, double ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::milli>(ms);
  float acc = 0;
  do {
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < kHidden; ++c) {
        float s = 0;
        for (int k = 0; k < kFeatures; ++k) s += x[r * kFeatures + k] * w[k * kHidden + c];
        acc += std::tanh(s);
      }
  } while (std::chrono::steady_clock::now() < until);
  return acc;
}

void sleep_ms(double ms) { std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms)); }

// The input pipeline: FileRead (source) -> Map (preprocess) -> Prefetch buffer.
void run_loader(const Options& opt, BatchQueue<Batch>& queue) {
  mlprof::set_thread_name("input_loader");
  std::vector<float> w(kFeatures * kHidden, 0.01f);
  for (int64_t i = 0; i < opt.steps; ++i) {
    Batch batch{i, std::vector<float>(kBatchSize * kFeatures)};
    {
      // _p/_c (TraceMe's producer/consumer ids): batch i is what step i consumes, so the
      // analysis links the loader's work to the step that waits for it.
      mlprof::Trace map("Iterator::Prefetch::Map", {{"_p", i}});
      {
        mlprof::Trace read("Iterator::Prefetch::Map::FileRead");
        sleep_ms(opt.slow_input ? 45.0 : 2.0);  // waiting on storage
        for (size_t k = 0; k < batch.values.size(); ++k) batch.values[k] = float((k * 31 + i) % 97) / 97.f;
      }
      spin_matmul(batch.values, w, 1.0);  // decode and augment
    }
    queue.push(std::move(batch));
  }
  queue.close();
}

void run_training(const Options& opt, BatchQueue<Batch>& queue) {
  mlprof::set_thread_name("train");
  std::vector<float> w(kFeatures * kHidden, 0.02f);
  double loss = 0;
  for (int64_t step = 0; step < opt.steps; ++step) {
    mlprof::StepTrace step_trace("train", step);
    std::optional<Batch> batch;
    {
      // The training loop asking for its next batch: a root iterator (input wait).
      mlprof::Trace next("Iterator::Prefetch", {{"_c", step}});
      batch = queue.pop();
    }
    if (!batch) break;
    {
      mlprof::Trace t("forward", {{"batch", batch->index}, {"size", kBatchSize}});
      loss += spin_matmul(batch->values, w, 12.0);
    }
    {
      MLPROF_TRACE("backward");
      loss += spin_matmul(batch->values, w, 16.0);
    }
    {
      MLPROF_TRACE("optimizer_update");
      for (auto& v : w) v *= 0.9999f;
      spin_matmul(batch->values, w, 2.0);
    }
  }
  std::printf("trained %d steps, loss %.3f\n", opt.steps, loss / opt.steps);
}

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--logdir DIR] [--run-name NAME] [--steps N] [--slow-input] [--profile-steps A:B]\n"
               "          [--server-port N]\n"
               "  --logdir DIR          where the profile goes (default demo-logdir)\n"
               "  --run-name NAME       run directory name (default: the local time)\n"
               "  --steps N             training steps to run (default 30)\n"
               "  --slow-input          make reading data slower than a step (input-bound)\n"
               "  --profile-steps A:B   record steps A to B only (default: the whole run)\n"
               "  --server-port N       no session: serve captures on 127.0.0.1:N instead (0: any port)\n",
               argv0);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--logdir" && i + 1 < argc) opt.logdir = argv[++i];
    else if (a == "--steps" && i + 1 < argc) opt.steps = std::atoi(argv[++i]);
    else if (a == "--slow-input") opt.slow_input = true;
    else if (a == "--run-name" && i + 1 < argc) opt.run_name = argv[++i];
    else if (a == "--server-port" && i + 1 < argc) opt.server_port = std::atoi(argv[++i]);
    else if (a == "--profile-steps" && i + 1 < argc) {
      if (std::sscanf(argv[++i], "%ld:%ld", &opt.first_step, &opt.last_step) != 2) return usage(argv[0]);
    } else if (a == "--help" || a == "-h") {
      usage(argv[0]);
      return 0;
    } else {
      return usage(argv[0]);
    }
  }
  if (opt.steps <= 0) return usage(argv[0]);

  bool profiling = false;  // this program's own session started (it may end on its own after --profile-steps)
  if (opt.server_port >= 0) {
#ifdef MLPROF_EXAMPLE_HAS_SERVER
    if (auto status = mlprof::start_server(opt.server_port); !status.ok()) {
      std::fprintf(stderr, "train_loop: %s\n", status.message().c_str());
      return 1;
    }
    std::printf("profiler server listening on 127.0.0.1:%d\n", mlprof::server_port());
    std::fflush(stdout);
#else
    std::fprintf(stderr, "train_loop: --server-port needs mlprof built with gRPC (libmlprof_rpc)\n");
    return 1;
#endif
  } else {
    mlprof::ProfilerOptions options;
    options.first_step = opt.first_step;
    options.last_step = opt.last_step;
    options.run_name = opt.run_name;
    const mlprof::Status status = mlprof::start(opt.logdir, options);
    profiling = status.ok();
    if (!profiling) std::fprintf(stderr, "train_loop: profiling disabled: %s\n", status.message().c_str());
  }

  BatchQueue<Batch> queue(8);  // prefetch depth
  std::thread loader(run_loader, std::cref(opt), std::ref(queue));
  run_training(opt, queue);
  queue.close();
  loader.join();

  if (profiling) {
    const mlprof::RunInfo run = mlprof::stop();
    if (!run.status.ok()) {
      std::fprintf(stderr, "train_loop: %s\n", run.status.message().c_str());
      return 1;
    }
    std::printf("profile: %s (%llu events, %llu dropped)\n", run.xspace_path.c_str(),
                (unsigned long long)run.events, (unsigned long long)run.dropped);
  }
  return 0;
}
