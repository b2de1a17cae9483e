// The cost of an annotation, against a bare loop and an ideal recorder (two tick reads and
// a store into a preallocated per-thread array) measured in the same run (docs/ARCHITECTURE.md §6).
// After Google Benchmark's table it prints one summary line per figure.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "mlprof/mlprof.h"

namespace {

constexpr int64_t kIterations = 4'000'000;  // per thread: bounded, so the buffer never fills
constexpr int kRepetitions = 5;

std::string scratch_logdir() {
  return (std::filesystem::temp_directory_path() / ("mlprof-annotation-bench-" + std::to_string(getpid()))).string();
}

// Thread 0 starts a session before the timed loop (Google Benchmark holds the other
// threads at a barrier) and writes it after; that export is not timed.
class SessionForBenchmark {
 public:
  explicit SessionForBenchmark(const benchmark::State& state) : owner_(state.thread_index() == 0) {
    if (!owner_) return;
    mlprof::ProfilerOptions options;
    options.max_buffer_bytes = uint64_t{2} << 30;  // address space; pages are touched as used
    options.run_name = "bench";
    if (!mlprof::start(scratch_logdir(), options).ok()) std::abort();
  }
  ~SessionForBenchmark() {
    if (!owner_) return;
    const mlprof::RunInfo run = mlprof::stop();
    if (run.dropped != 0) std::fprintf(stderr, "annotation_bench: %llu events dropped\n",
                                       static_cast<unsigned long long>(run.dropped));
    std::filesystem::remove_all(scratch_logdir());
  }

 private:
  bool owner_;
};

void BM_EmptyLoop(benchmark::State& state) {
  for (auto _ : state) benchmark::ClobberMemory();
}

// The floor: what any recorder of complete events must do.
struct IdealRecord {
  const char* name;
  uint64_t start;
  uint64_t end;
};
constexpr size_t kIdealSlots = size_t{1} << 20;  // 24 MiB per thread, reused in a ring
thread_local std::unique_ptr<IdealRecord[]> t_ideal;

void BM_IdealRecorder(benchmark::State& state) {
  if (!t_ideal) t_ideal.reset(new IdealRecord[kIdealSlots]);
  IdealRecord* records = t_ideal.get();
  size_t i = 0;
  for (auto _ : state) {
    const uint64_t start = mlprof::now_ticks();
    const uint64_t end = mlprof::now_ticks();
    records[i] = IdealRecord{"scope", start, end};
    i = (i + 1) & (kIdealSlots - 1);
    benchmark::ClobberMemory();
  }
}

void BM_DisabledScope(benchmark::State& state) {
  for (auto _ : state) {
    MLPROF_TRACE("scope");
    benchmark::ClobberMemory();
  }
}

void BM_EnabledScope(benchmark::State& state) {
  SessionForBenchmark session(state);
  for (auto _ : state) {
    MLPROF_TRACE("scope");
    benchmark::ClobberMemory();
  }
}

void BM_EnabledCopiedName(benchmark::State& state) {
  SessionForBenchmark session(state);
  const std::string name = "dynamic_name_0042";
  for (auto _ : state) {
    mlprof::Trace t(name);
    benchmark::ClobberMemory();
  }
}

// The same scope, charged with the whole process's CPU time: this includes the session
// thread that commits capture pages ahead of the writers.
void BM_EnabledScopeProcessCpu(benchmark::State& state) { BM_EnabledScope(state); }

void BM_StepMarker(benchmark::State& state) {
  SessionForBenchmark session(state);
  int64_t step = 0;
  for (auto _ : state) {
    mlprof::StepTrace s("train", step++);
    benchmark::ClobberMemory();
  }
}

BENCHMARK(BM_EmptyLoop)->Iterations(kIterations)->Repetitions(kRepetitions);
BENCHMARK(BM_IdealRecorder)->Iterations(kIterations)->Repetitions(kRepetitions)->Threads(1)->Threads(2);
BENCHMARK(BM_DisabledScope)->Iterations(kIterations)->Repetitions(kRepetitions);
BENCHMARK(BM_EnabledScope)->Iterations(kIterations)->Repetitions(kRepetitions)->Threads(1)->Threads(2);
BENCHMARK(BM_EnabledScopeProcessCpu)->Iterations(kIterations)->Repetitions(kRepetitions)->MeasureProcessCPUTime();
BENCHMARK(BM_EnabledCopiedName)->Iterations(kIterations)->Repetitions(kRepetitions);
BENCHMARK(BM_StepMarker)->Iterations(kIterations)->Repetitions(kRepetitions);

// Keeps the best (lowest) CPU time per iteration of each benchmark: on a shared machine the
// minimum is the figure least disturbed by others. CPU time is summed over threads and so
// are iterations, so this is the cost per scope on one thread.
class BestOfReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration || run.iterations == 0) continue;
      const double ns = run.cpu_accumulated_time * 1e9 / double(run.iterations);
      const std::string key = run.run_name.function_name + "/" + std::to_string(run.threads);
      auto [it, added] = best_.try_emplace(key, ns);
      if (!added) it->second = std::min(it->second, ns);
    }
    ConsoleReporter::ReportRuns(runs);
  }
  double ns(const std::string& function, int threads) const {
    auto it = best_.find(function + "/" + std::to_string(threads));
    return it == best_.end() ? 0.0 : it->second;
  }

 private:
  std::map<std::string, double> best_;
};

// target 0: no target, the figure is for information.
void print_ratio_line(const char* figure, const char* unit, double ns, double ideal, double target) {
  char target_text[32] = "no target";
  if (target > 0) std::snprintf(target_text, sizeof target_text, "target <= %.2f", target);
  std::printf("annotation %s: %.1f ns/%s (ideal %.1f ns, ratio %.2f, %s)\n", figure, ns, unit, ideal,
              ns / ideal, target_text);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  BestOfReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const double empty = reporter.ns("BM_EmptyLoop", 1);
  std::printf("\nbest of %d runs, CPU time per scope on one thread (capture pages are committed\n"
              "ahead by the session's thread; the process_cpu line includes that work):\n",
              kRepetitions);
  print_ratio_line("enabled_1thread", "scope", reporter.ns("BM_EnabledScope", 1),
                   reporter.ns("BM_IdealRecorder", 1), 1.15);
  print_ratio_line("enabled_2threads", "scope", reporter.ns("BM_EnabledScope", 2),
                   reporter.ns("BM_IdealRecorder", 2), 1.15);
  print_ratio_line("enabled_1thread_process_cpu", "scope", reporter.ns("BM_EnabledScopeProcessCpu", 1),
                   reporter.ns("BM_IdealRecorder", 1), 0);
  print_ratio_line("enabled_copied_name", "scope", reporter.ns("BM_EnabledCopiedName", 1),
                   reporter.ns("BM_IdealRecorder", 1), 0);
  print_ratio_line("step_marker", "step", reporter.ns("BM_StepMarker", 1),
                   reporter.ns("BM_IdealRecorder", 1), 0);
  const double disabled = reporter.ns("BM_DisabledScope", 1);
  std::printf("annotation disabled: %.2f ns/scope (%.2f ns over the empty loop's %.2f ns, target <= 1 ns)\n",
              disabled, disabled - empty, empty);
  return 0;
}
