// The critical path at scale (the target: the graph, its path per step and the default
// what-ifs on the 2.2 M-event PyTorch trace in <= 0.5 s per million events beyond loading and
// step analysis). Writes ten time-shifted copies of df_index_resolver in its build folder (as
// gpu_timeline_bench does), loads them, analyses the steps, then times the critical_path tool.
// One line each:
//   critical_path_bench: <phase> <wall seconds> s (<cpu seconds> s CPU)
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "analysis/critical_path/critical_path.h"
#include "analysis/step_breakdown.h"
#include "model/load_profile.h"
#include "process_stats.h"
#include "trace_copies.h"

namespace fs = std::filesystem;

namespace {
constexpr const char* kSource = MLPROF_TESTDATA "/pytorch/df_index_resolver__df_index_resolver.json.gz";
constexpr int64_t kShiftNs = 100'000'000'000;  // 100 s apart: longer than the trace
}  // namespace

int main() {
  bool skipped = false;
  const fs::path ten =
      mlprof::bench::copies_of("critical_path_bench", kSource, fs::path(MLPROF_BENCH_DIR) / "critical_path_data", 10, kShiftNs, &skipped);
  if (ten.empty()) return skipped ? 0 : 1;

  using Clock = std::chrono::steady_clock;
  mlprof::model::Profile profile;
  auto t = Clock::now();
  double cpu = mlprof::bench::process_cpu_seconds();
  if (!mlprof::bench::load_copies("critical_path_bench", ten, &profile)) return 1;
  double wall = 0, used = 0;
  auto phase = [&](const char* name) {
    wall = std::chrono::duration<double>(Clock::now() - t).count();
    used = mlprof::bench::process_cpu_seconds() - cpu;
    std::printf("critical_path_bench: %-40s %6.3f s (%6.3f s CPU)\n", name, wall, used);
    t = Clock::now();
    cpu = mlprof::bench::process_cpu_seconds();
  };
  phase("load");
  const auto steps = mlprof::analysis::analyze_steps(profile);
  phase("steps (shared by every tool)");
  const auto path = mlprof::analysis::compute_critical_path(profile, steps);
  phase("critical path and default what-ifs");
  const double per_million = wall / (double(profile.num_events()) / 1e6);
  std::printf("critical_path_bench: %zu events, %zu steps, %zu what-ifs: %.3f s per million events beyond "
              "loading (%.3f s CPU); <= 0.5 s: %s\n",
              profile.num_events(), path.steps.size(), path.what_if.size(), per_million,
              used / (double(profile.num_events()) / 1e6), per_million <= 0.5 ? "met" : "NOT met");
  return 0;
}
