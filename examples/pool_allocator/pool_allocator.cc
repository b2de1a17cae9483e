// A training-like loop whose tensors live in an instrumented best-fit pool (best_fit_pool.h),
// profiled with mlprof's memory profile, to copy from:
//
//   mlprof report LOGDIR --tool memory_profile
//
// shows the pool's peak, the tensors alive at the peak by op, and how fragmented the free
// memory was. The allocation pattern fragments the pool on purpose, as real training does:
// the sequence length changes from step to step (so tensor sizes do), and each layer's
// scratch buffer is freed while the activation allocated after it lives on, leaving a hole
// that the next, larger scratch buffer cannot use.
//
// At the end it prints its own counters at the peak, which the memory profile must match.
#include <mlprof/memory.h>
#include <mlprof/mlprof.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <thread>
#include <vector>

#include "best_fit_pool.h"

namespace {

using pool_example::BestFitPool;
using pool_example::BlockInfo;
using pool_example::PoolCounters;

struct Options {
  std::string logdir = "pool-logdir";
  std::string run_name;  // default: the local time
  int steps = 8;
  int pool_mib = 160;
};

constexpr int kLayers = 6;
constexpr int kBatch = 8;
constexpr int kHidden = 512;

std::string shape(std::initializer_list<int64_t> dims) {
  std::string s = "[";
  for (int64_t d : dims) s += (s.size() > 1 ? "," : "") + std::to_string(d);
  return s + "]";
}

// The pool's counters when its use peaked (the first time it reached its highest).
struct PeakWatch {
  PoolCounters at_peak;
  int64_t step = -1;
  void after_event(const BestFitPool& pool, int64_t current_step) {
    if (pool.counters().in_use > at_peak.in_use) at_peak = pool.counters(), step = current_step;
  }
};

// Stands in for the kernels: longer sequences take longer.
void compute(int64_t seq) { std::this_thread::sleep_for(std::chrono::microseconds(2 * seq)); }

class Trainer {
 public:
  Trainer(BestFitPool& pool, PeakWatch& watch) : pool_(pool), watch_(watch) {}

  void* allocate(size_t bytes, BlockInfo info) {
    void* p = pool_.allocate(bytes, info);
    if (p == nullptr) {
      const PoolCounters& c = pool_.counters();
      std::fprintf(stderr,
                   "pool_allocator: out of memory: %s asked for %zu bytes; %" PRId64 " are free but the largest free "
                   "chunk has %" PRId64 " (fragmentation %.1f%%)\n",
                   info.op.c_str(), bytes, c.free, c.largest_free_chunk, c.fragmentation_pct());
      std::exit(1);
    }
    watch_.after_event(pool_, step_);
    return p;
  }
  void release(void* p) {
    pool_.deallocate(p);
    watch_.after_event(pool_, step_);
  }

  // Weights and the optimizer's moments live for the whole run.
  void create_parameters() {
    mlprof::Trace t("init_parameters");
    for (int l = 0; l < kLayers; ++l) {
      const std::string op = "layer" + std::to_string(l) + "/dense";
      const size_t bytes = size_t(kHidden) * kHidden * sizeof(float);
      weights_.push_back(allocate(bytes, {op + "/kernel", "persist", "float", shape({kHidden, kHidden})}));
      moments_.push_back(allocate(bytes, {op + "/adam_m", "persist", "float", shape({kHidden, kHidden})}));
    }
  }

  void train_step(int64_t step) {
    step_ = step;
    mlprof::StepTrace trace("train", step);
    // Batches of different lengths: 128 to 512 tokens.
    const int64_t seq = 64 * (2 + (step * 5) % 7);
    const size_t activation_bytes = size_t(kBatch) * seq * kHidden * sizeof(float);
    std::vector<void*> activations;
    {
      mlprof::Trace f("forward");
      for (int l = 0; l < kLayers; ++l) {
        const std::string op = "layer" + std::to_string(l) + "/dense";
        mlprof::Trace t(op);
        // Scratch grows layer by layer, so no scratch fits the hole an earlier one left.
        void* scratch = allocate(activation_bytes * (l + 2) / 4,
                                 {op + "/workspace", "temp", "half", shape({kBatch, seq, kHidden * (l + 2) / 2})});
        activations.push_back(allocate(activation_bytes, {op + "/output", "output", "float", shape({kBatch, seq, kHidden})}));
        compute(seq);
        release(scratch);
      }
    }
    void* loss = allocate(kBatch * sizeof(float), {"loss", "output", "float", shape({kBatch})});
    {
      mlprof::Trace b("backward");
      for (int l = kLayers - 1; l >= 0; --l) {
        const std::string op = "layer" + std::to_string(l) + "/dense_grad";
        mlprof::Trace t(op);
        void* input_grad = allocate(activation_bytes, {op + "/input_grad", "output", "float", shape({kBatch, seq, kHidden})});
        void* kernel_grad = allocate(size_t(kHidden) * kHidden * sizeof(float),
                                     {op + "/kernel_grad", "output", "float", shape({kHidden, kHidden})});
        compute(seq);
        release(activations[size_t(l)]);
        release(kernel_grad);  // applied to the weights at once
        release(input_grad);
      }
    }
    release(loss);
  }

  void release_parameters() {
    for (void* p : weights_) release(p);
    for (void* p : moments_) release(p);
  }

 private:
  BestFitPool& pool_;
  PeakWatch& watch_;
  int64_t step_ = -1;
  std::vector<void*> weights_, moments_;
};

int usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--logdir DIR] [--run-name NAME] [--steps N] [--pool-mib N]\n"
               "  --logdir DIR     where the profile goes (default pool-logdir)\n"
               "  --run-name NAME  run directory name (default: the local time)\n"
               "  --steps N        training steps (default 8)\n"
               "  --pool-mib N     the pool's size in MiB (default 160; smaller runs out of memory)\n",
               argv0);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--logdir" && i + 1 < argc) opt.logdir = argv[++i];
    else if (a == "--run-name" && i + 1 < argc) opt.run_name = argv[++i];
    else if (a == "--steps" && i + 1 < argc) opt.steps = std::atoi(argv[++i]);
    else if (a == "--pool-mib" && i + 1 < argc) opt.pool_mib = std::atoi(argv[++i]);
    else if (a == "--help" || a == "-h") {
      usage(argv[0]);
      return 0;
    } else {
      return usage(argv[0]);
    }
  }
  if (opt.steps <= 0 || opt.pool_mib <= 0) return usage(argv[0]);

  mlprof::ProfilerOptions options;
  options.run_name = opt.run_name;
  options.host_tracer_level = 3;  // memory events are recorded at level 3
  if (auto status = mlprof::start(opt.logdir, options); !status.ok())
    std::fprintf(stderr, "pool_allocator: profiling disabled: %s\n", status.message().c_str());

  BestFitPool pool("pool", size_t(opt.pool_mib) << 20);
  PeakWatch watch;
  {
    Trainer trainer(pool, watch);
    trainer.create_parameters();
    for (int64_t step = 0; step < opt.steps; ++step) trainer.train_step(step);
    trainer.release_parameters();
  }

  const PoolCounters& peak = watch.at_peak;
  const PoolCounters& end = pool.counters();
  std::printf("pool \"%s\": %" PRIu64 " allocations, %" PRIu64 " deallocations, reserved %" PRId64 " bytes\n",
              pool.name().c_str(), end.allocations, end.deallocations, end.reserved);
  std::printf("at the peak (step %" PRId64 "): in_use=%" PRId64 " free=%" PRId64 " largest_free_chunk=%" PRId64
              " fragmentation_pct=%.9f\n",
              watch.step, peak.in_use, peak.free, peak.largest_free_chunk, peak.fragmentation_pct());
  if (mlprof::is_active()) {
    const mlprof::RunInfo run = mlprof::stop();
    if (!run.status.ok()) {
      std::fprintf(stderr, "pool_allocator: %s\n", run.status.message().c_str());
      return 1;
    }
    std::printf("profile: %s (%llu events, %llu dropped)\n", run.xspace_path.c_str(),
                (unsigned long long)run.events, (unsigned long long)run.dropped);
  }
  return 0;
}
