// Analysis at scale (docs/ARCHITECTURE.md §6: loading plus every tool on a 10 M-event profile in ≤ 2 s and
// ≤ 48 bytes of memory per event).
//
// Writes an XSpace shaped like a GPU training run: a main thread with step markers, an input
// wait and nested ops; worker threads linked to the steps by producer/consumer ids, running
// nested ops that launch kernels; a loader thread with tf.data-style stages; one GPU stream per
// worker with the kernels, linked by correlation ids. The file is written by a child process so
// that its memory does not count. Then times loading and each tool, and prints one line each:
//   analysis_bench: <phase> <wall seconds> s (<cpu seconds> s CPU), <events/s> events/s, <peak so far>
// then the run's size and the machine's load, and one line per target: the total time, and the
// peak memory growth per event; then the critical_path tool with its default what-ifs, timed
// after those (its phase line, and its target: <= 0.5 s per million events beyond loading).
// CPU seconds are printed beside wall seconds because a machine shared with other work
// stretches the latter.
//
// The load is also timed alone on one thread and on two (lines decoded at once), in one line.
//
// Usage: analysis_bench [events, default 10000000]
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "analysis/critical_path/critical_path.h"
#include "analysis/framework_op_stats.h"
#include "analysis/gpu_timeline/gpu_timeline.h"
#include "analysis/input_pipeline_analyzer.h"
#include "analysis/overview_page.h"
#include "analysis/step_breakdown.h"
#include "analysis/gpu_timeline/stragglers.h"
#include "analysis/tf_data_bottleneck_analysis.h"
#include "format/xspace_encoder.h"
#include "model/xspace/importer.h"
#include "process_stats.h"

namespace {

using Clock = std::chrono::steady_clock;
using mlprof::format::WireEvent;
using mlprof::format::WireStat;

constexpr int64_t kUs = 1'000'000;  // ps
constexpr int kWorkers = 6;
constexpr int kBlocksPerWorkerStep = 400;  // each: an op holding an op and an op that launches
constexpr int kMainOpsPerStep = 196;
constexpr int kLoaderCallsPerStep = 10;
constexpr int64_t kStepPs = 100'000 * kUs;
// Events per step: main 4 + 196, workers 6 × (1 + 400 × 4), kernels 6 × 400, loader 10 × 2.
constexpr int64_t kEventsPerStep = 4 + kMainOpsPerStep + kWorkers * (1 + 4 * kBlocksPerWorkerStep) +
                                   kWorkers * kBlocksPerWorkerStep + 2 * kLoaderCallsPerStep;

// Stat and event metadata ids of the generated planes.
enum StatId : int64_t { kStepNum = 1, kRoot, kProducerType, kProducerId, kConsumerType, kConsumerId, kCorrelation };
enum NameId : uint32_t { kTrain = 1, kPrefetch, kForward, kBackward, kProcess, kLaunch, kMap, kRead, kOpBase = 100 };
constexpr uint32_t kOpNames = 64, kKernelBase = 1000, kKernelNames = 32;

bool write_profile(const std::string& path, int64_t steps, std::string* error) {
  using namespace mlprof::format;
  WireSpace space;
  space.hostnames.push_back("bench-host");
  WirePlane host;
  host.id = 1;
  host.name = "/host:CPU";
  for (auto [id, name] : {std::pair{kStepNum, "step_num"}, {kRoot, "_r"}, {kProducerType, "_pt"}, {kProducerId, "_p"},
                          {kConsumerType, "_ct"}, {kConsumerId, "_c"}, {kCorrelation, "correlation_id"}})
    host.stat_metadata.push_back({id, name, ""});
  for (auto [id, name] : {std::pair{kTrain, "train"}, {kPrefetch, "Iterator::Prefetch"}, {kForward, "forward"},
                          {kBackward, "backward"}, {kProcess, "ExecutorState::Process"}, {kLaunch, "cudaLaunchKernel"},
                          {kMap, "Iterator::Prefetch::Map"}, {kRead, "Iterator::Prefetch::Map::FileRead"}})
    host.event_metadata.push_back({int64_t(id), name, ""});
  for (uint32_t i = 0; i < kOpNames; ++i)
    host.event_metadata.push_back({int64_t(kOpBase + i), "aten::op_" + std::to_string(i), ""});
  WirePlane gpu;
  gpu.id = 2;
  gpu.name = "/device:GPU:0";
  gpu.stat_metadata = host.stat_metadata;
  for (uint32_t i = 0; i < kKernelNames; ++i)
    gpu.event_metadata.push_back({int64_t(kKernelBase + i), "sgemm_kernel_" + std::to_string(i), ""});

  std::vector<std::vector<WireEvent>> threads(2 + kWorkers), streams(kWorkers);
  auto stats = [](WirePlane& plane, std::initializer_list<WireStat> list) {
    plane.stat_lists.push_back({uint32_t(plane.stat_pool.size()), uint32_t(list.size())});
    plane.stat_pool.insert(plane.stat_pool.end(), list);
    return uint32_t(plane.stat_lists.size());
  };
  uint64_t correlation = 0;
  for (int64_t s = 0; s < steps; ++s) {
    const int64_t t0 = s * kStepPs;
    auto& main = threads[0];
    main.push_back({t0, kStepPs, kTrain,
                    stats(host, {WireStat::of_int64(kStepNum, s), WireStat::of_int64(kRoot, 1),
                                 WireStat::of_int64(kProducerType, 1), WireStat::of_uint64(kProducerId, uint64_t(s))})});
    main.push_back({t0, 30'000 * kUs, kPrefetch, 0});
    main.push_back({t0 + 30'000 * kUs, 35'000 * kUs, kForward, 0});
    for (int i = 0; i < kMainOpsPerStep / 2; ++i)
      main.push_back({t0 + 30'000 * kUs + i * 350 * kUs, 300 * kUs, kOpBase + uint32_t(i) % kOpNames, 0});
    main.push_back({t0 + 65'000 * kUs, 35'000 * kUs, kBackward, 0});
    for (int i = 0; i < kMainOpsPerStep / 2; ++i)
      main.push_back({t0 + 65'000 * kUs + i * 350 * kUs, 300 * kUs, kOpBase + uint32_t(i + 7) % kOpNames, 0});

    for (int w = 0; w < kWorkers; ++w) {
      auto& worker = threads[size_t(2 + w)];
      const int64_t begin = t0 + 30'000 * kUs, block = 170 * kUs;
      worker.push_back({begin, kBlocksPerWorkerStep * block, kProcess,
                        stats(host, {WireStat::of_int64(kConsumerType, 1), WireStat::of_uint64(kConsumerId, uint64_t(s))})});
      for (int b = 0; b < kBlocksPerWorkerStep; ++b) {
        const int64_t at = begin + b * block;
        const uint32_t op = kOpBase + uint32_t(b * 3 + w) % kOpNames;
        worker.push_back({at, 160 * kUs, op, 0});
        worker.push_back({at + 5 * kUs, 50 * kUs, kOpBase + (op + 1) % kOpNames, 0});
        worker.push_back({at + 60 * kUs, 90 * kUs, kOpBase + (op + 2) % kOpNames, 0});
        ++correlation;
        worker.push_back({at + 70 * kUs, 10 * kUs, kLaunch, stats(host, {WireStat::of_uint64(kCorrelation, correlation)})});
        streams[size_t(w)].push_back({at + 90 * kUs, 60 * kUs, kKernelBase + uint32_t(b) % kKernelNames,
                                      stats(gpu, {WireStat::of_uint64(kCorrelation, correlation)})});
      }
    }
    auto& loader = threads[1];
    for (int i = 0; i < kLoaderCallsPerStep; ++i) {
      const int64_t at = t0 + i * 10'000 * kUs;
      loader.push_back({at, 9'000 * kUs, kMap, 0});
      loader.push_back({at + 1'000 * kUs, 8'000 * kUs, kRead, 0});
    }
  }
  const int64_t epoch_ns = 1'700'000'000'000'000'000;
  for (size_t t = 0; t < threads.size(); ++t)
    host.lines.push_back({int64_t(1000 + t), 0, t == 0 ? "main" : t == 1 ? "loader" : "worker", "", epoch_ns, 0, threads[t]});
  for (size_t w = 0; w < streams.size(); ++w)
    gpu.lines.push_back({int64_t(10 + w), 0, "Stream #" + std::to_string(10 + w) + "(Compute)", "", epoch_ns, 0, streams[w]});
  space.planes.push_back(std::move(host));
  space.planes.push_back(std::move(gpu));
  return write_xspace_file(space, path, error);
}

// Writes the profile from a child process so that the parent's peak memory is the analysis'.
bool write_in_child(const std::string& path, int64_t steps) {
  return mlprof::bench::run_in_child([&] {
    std::string error;
    const bool ok = write_profile(path, steps, &error);
    if (!ok) std::fprintf(stderr, "analysis_bench: %s\n", error.c_str());
    return ok;
  });
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

int main(int argc, char** argv) {
  const int64_t wanted = argc > 1 ? std::atoll(argv[1]) : 10'000'000;
  const int64_t steps = std::max<int64_t>(1, wanted / kEventsPerStep);
  const std::string path =
      (std::filesystem::temp_directory_path() / ("mlprof_analysis_bench_" + std::to_string(getpid()) + ".xplane.pb")).string();
  if (!write_in_child(path, steps)) return 1;
  const double file_mb = double(std::filesystem::file_size(path)) / 1e6;

  // Loading alone on one thread and on two (its lines decoded at once), in the same run.
  double load_s[2] = {0, 0};
  for (unsigned jobs : {1u, 2u}) {
    mlprof::model::Profile profile;
    std::string error;
    const auto begin = Clock::now();
    if (!mlprof::model::import_xspace_file(path, "bench-host", &profile, &error, {}, jobs)) {
      std::fprintf(stderr, "analysis_bench: %s: %s\n", path.c_str(), error.c_str());
      return 1;
    }
    load_s[jobs - 1] = seconds_since(begin);
  }
  double load_avg = 0;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load_avg) != 1) load_avg = 0;
    std::fclose(f);
  }
  std::printf("analysis_bench: load on 1 thread %.3f s, on 2 threads %.3f s: %.2fx faster (target >= 1.7 on two "
              "cores), load %.1f\n",
              load_s[0], load_s[1], load_s[0] / load_s[1], load_avg);

  mlprof::bench::reset_peak_rss();
  const size_t rss_before = mlprof::bench::proc_status_kib("VmRSS") * 1024;
  const auto start = Clock::now();
  const double cpu_start = mlprof::bench::process_cpu_seconds();
  double last = 0, last_cpu = cpu_start;
  auto phase = [&](const char* name, double events) {
    const double now = seconds_since(start), cpu = mlprof::bench::process_cpu_seconds();
    // The peak so far says which phase sets the run's peak memory.
    const size_t peak_now = mlprof::bench::proc_status_kib("VmHWM") * 1024;
    const double peak_so_far = double(peak_now - std::min(peak_now, rss_before)) / events;
    std::printf("analysis_bench: %-28s %6.3f s (%6.3f s CPU), %7.1f M events/s, peak memory so far %.1f bytes/event\n",
                name, now - last, cpu - last_cpu, events / (now - last) / 1e6, peak_so_far);
    last = now;
    last_cpu = cpu;
  };

  mlprof::model::Profile profile;
  std::string error;
  if (!mlprof::model::import_xspace_file(path, "bench-host", &profile, &error, {}, 2)) {
    std::fprintf(stderr, "analysis_bench: %s: %s\n", path.c_str(), error.c_str());
    return 1;
  }
  std::filesystem::remove(path);
  const double events = double(profile.num_events());
  phase("load", events);
  const auto steps_analysis = mlprof::analysis::analyze_steps(profile);
  phase("steps and breakdown", events);
  const auto op_stats = mlprof::analysis::compute_framework_op_stats(profile);
  phase("framework_op_stats", events);
  const auto input = mlprof::analysis::compute_input_pipeline_analysis(profile, steps_analysis);
  phase("input_pipeline_analyzer", events);
  const auto tf_data = mlprof::analysis::compute_tf_data_bottleneck_analysis(profile, steps_analysis);
  phase("tf_data_bottleneck_analysis", events);
  const auto overview = mlprof::analysis::compute_overview_page(profile, steps_analysis, op_stats, tf_data);
  phase("overview_page", events);
  const auto timeline = mlprof::analysis::compute_gpu_timeline(profile, steps_analysis.grouping);
  phase("gpu timeline tools", events);
  const auto stragglers = mlprof::analysis::compute_stragglers(profile, steps_analysis.grouping);
  phase("stragglers", events);
  const double total = seconds_since(start), total_cpu = mlprof::bench::process_cpu_seconds() - cpu_start;
  const size_t peak = mlprof::bench::proc_status_kib("VmHWM") * 1024;

  const double peak_per_event = double(peak - std::min(peak, rss_before)) / events;
  // The critical_path tool with its default what-ifs (the overview's headline made a lighter
  // one), after the totals above, which it does not change: its own target line.
  const double path_wall_start = seconds_since(start), path_cpu_start = mlprof::bench::process_cpu_seconds();
  const auto critical = mlprof::analysis::compute_critical_path(profile, steps_analysis);
  const double path_wall = seconds_since(start) - path_wall_start;
  const double path_cpu = mlprof::bench::process_cpu_seconds() - path_cpu_start;
  phase("critical path, default what-ifs", events);
  // Wall time depends on what else runs: say how busy the machine was.
  double load = 0;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = 0;
    std::fclose(f);
  }
  const char* time_verdict = total <= 2.0 ? "met" : total_cpu <= 2.0 ? "met in CPU time, not in wall time" : "NOT met";
  std::printf("analysis_bench: %.0f events (%.0f MB file, %zu steps, verdict %s), load average %.1f on %u cores\n",
              events, file_mb, overview.steps.size(), std::string(verdict_name(input.summary.verdict)).c_str(), load,
              std::thread::hardware_concurrency());
  std::printf("analysis_bench: target time: load + every tool %.3f s (%.3f s CPU, %.1f M events/s); <= 2 s: %s\n",
              total, total_cpu, events / total / 1e6, time_verdict);
  const double path_s = path_wall / (events / 1e6), path_cpu_s = path_cpu / (events / 1e6);
  const char* path_verdict = path_s <= 0.5 ? "met" : path_cpu_s <= 0.5 ? "met in CPU time, not in wall time" : "NOT met";
  std::printf("analysis_bench: target critical path: %.3f s per million events beyond loading (%.3f s CPU), "
              "%zu steps, %zu what-ifs; <= 0.5 s: %s\n",
              path_s, path_cpu_s, critical.steps.size(), critical.what_if.size(), path_verdict);
  // The peak resident memory the load and the tools added, over the events: the model, the
  // results and each tool's working memory at its peak (not the model alone, printed beside it).
  std::printf("analysis_bench: target memory: peak %.1f bytes/event over the load and every tool (the model %.1f); "
              "<= 48 bytes/event: %s\n",
              peak_per_event, double(profile.bytes_used()) / events, peak_per_event <= 48 ? "met" : "NOT met");
  return 0;
}
