// Writing a large capture: 10 M events recorded by several threads (nested scopes, a few
// with metadata), then stop() timed: export, sort, encode and write of the XSpace.
// Prints seconds, file bytes per event and capture memory per event.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "mlprof/mlprof.h"

namespace {

constexpr int kThreads = 4;
constexpr int64_t kEventsPerThread = 2'500'000;

// Resident and peak resident memory of this process, in bytes (/proc/self/status).
uint64_t proc_status_kb(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0) return std::stoull(line.substr(std::string(field).size())) * 1024;
  }
  return 0;
}

double process_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// Lets VmHWM measure the peak of what comes next.
void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

// One thread's share: an outer scope holding four leaves, one in 100 carrying metadata.
void record(int64_t events) {
  static const char* const kLeaves[] = {"matmul", "relu", "add", "copy"};
  for (int64_t n = 0; n < events; n += 5) {
    MLPROF_TRACE("layer");
    for (int i = 0; i < 4; ++i) {
      if (n % 500 == 0 && i == 0) {
        mlprof::Trace t("batch", {{"n", n}, {"shape", "[32,128]"}});
      } else {
        mlprof::internal::record_literal(kLeaves[i], mlprof::now_ticks(), mlprof::now_ticks());
      }
    }
  }
}

struct Figures {
  double stop_seconds = 0;
  double stop_cpu_seconds = 0;  // all threads: stop() hands the export to the session thread
  uint64_t events = 0;
  uint64_t file_bytes = 0;
  uint64_t capture_bytes = 0;  // resident growth while recording
  uint64_t export_peak_bytes = 0;  // resident peak during stop() above where it began
};
Figures g_figures;

void BM_Export10M(benchmark::State& state) {
  const std::string logdir =
      (std::filesystem::temp_directory_path() / ("mlprof-export-bench-" + std::to_string(getpid()))).string();
  for (auto _ : state) {
    state.PauseTiming();
    mlprof::ProfilerOptions options;
    options.run_name = "bench";
    const uint64_t rss_before = proc_status_kb("VmRSS:");
    if (!mlprof::start(logdir, options).ok()) std::abort();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) threads.emplace_back(record, kEventsPerThread);
    for (auto& t : threads) t.join();
    const uint64_t rss_recorded = proc_status_kb("VmRSS:");
    reset_peak_rss();
    state.ResumeTiming();

    const auto begin = std::chrono::steady_clock::now();
    const double cpu_begin = process_cpu_seconds();
    const mlprof::RunInfo run = mlprof::stop();
    const double cpu_end = process_cpu_seconds();
    const auto end = std::chrono::steady_clock::now();

    state.PauseTiming();
    if (!run.status.ok()) {
      state.SkipWithError(run.status.message().c_str());
      break;
    }
    g_figures.stop_seconds = std::chrono::duration<double>(end - begin).count();
    g_figures.stop_cpu_seconds = cpu_end - cpu_begin;
    g_figures.events = run.events;
    g_figures.file_bytes = std::filesystem::file_size(run.xspace_path);
    g_figures.capture_bytes = rss_recorded - rss_before;
    g_figures.export_peak_bytes = proc_status_kb("VmHWM:") - rss_recorded;
    std::filesystem::remove_all(logdir);
    state.ResumeTiming();
  }
  state.counters["events"] = double(g_figures.events);
}

BENCHMARK(BM_Export10M)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  const Figures& f = g_figures;
  if (f.events == 0) return 1;
  const double events = double(f.events);
  std::printf("\nexport %.1fM events (%d threads): %.2f s (target <= 2 s; %.2f s of CPU), "
              "%.1f file bytes/event, %.1f capture bytes/event, +%.1f bytes/event peak during export\n",
              events / 1e6, kThreads, f.stop_seconds, f.stop_cpu_seconds, double(f.file_bytes) / events,
              double(f.capture_bytes) / events, double(f.export_peak_bytes) / events);
  return 0;
}
