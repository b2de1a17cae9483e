// The XLA op tools (op_profile, hlo_stats, roofline_model) and the per-chip rows (device_chips)
// beyond the load, on XProf's TPU file (JAX on a TPU v6e, four chips) and on a run of ten copies
// of it as ten hosts (40 chips). The target: each file's three tools and its chips in <= 0.2 s
// beyond the load. One line per phase:
//   xla_ops_bench: <what> <wall seconds> s (<cpu seconds> s CPU)
// and a total per profile with the target.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "analysis/device_chips.h"
#include "analysis/hlo_stats.h"
#include "analysis/op_profile.h"
#include "analysis/roofline_model.h"
#include "model/load_profile.h"
#include "process_stats.h"

namespace fs = std::filesystem;

namespace {

constexpr const char* kSource = MLPROF_TESTDATA "/wild/xprof/xprof__xprof_convert_test_xplanes_tpu_inference_2.xplane.pb";

// Loads `path` and times the three tools on it; false when it cannot be read.
bool measure(const std::string& label, const std::string& path) {
  using Clock = std::chrono::steady_clock;
  mlprof::model::Profile profile;
  mlprof::model::LoadError error;
  auto t = Clock::now();
  double cpu = mlprof::bench::process_cpu_seconds();
  if (!mlprof::model::load_profile({path, "", ""}, &profile, &error)) {
    std::fprintf(stderr, "xla_ops_bench: %s: %s\n", error.path.c_str(), error.problem.c_str());
    return false;
  }
  double mine = 0, mine_cpu = 0;
  auto phase = [&](const char* name, bool counts) {
    const double wall = std::chrono::duration<double>(Clock::now() - t).count();
    const double used = mlprof::bench::process_cpu_seconds() - cpu;
    std::printf("xla_ops_bench: %s: %-16s %6.3f s (%6.3f s CPU)\n", label.c_str(), name, wall, used);
    if (counts) mine += wall, mine_cpu += used;
    t = Clock::now();
    cpu = mlprof::bench::process_cpu_seconds();
  };
  phase("load", false);
  const auto op_profile = mlprof::analysis::compute_op_profile(profile);
  phase("op_profile", true);
  const auto hlo_stats = mlprof::analysis::compute_hlo_stats(profile);
  phase("hlo_stats", true);
  const auto roofline = mlprof::analysis::compute_roofline_model(profile);
  phase("roofline_model", true);
  const auto chips = mlprof::analysis::compute_device_chips(profile);
  phase("chips", true);
  std::printf("xla_ops_bench: %s: %zu events, %zu devices, %zu HLO ops: the three tools and the chips %.3f s beyond the load "
              "(%.3f s CPU); <= 0.2 s: %s\n",
              label.c_str(), profile.num_events(), roofline.devices.size(), hlo_stats.rows.size(), mine, mine_cpu,
              mine <= 0.2 ? "met" : "NOT met");
  return !op_profile.views.empty() && !chips.chips.empty();
}

}  // namespace

int main() {
  if (!fs::exists(kSource)) {
    std::printf("xla_ops_bench: skipped, %s not found (needs ../shared/testdata)\n", kSource);
    return 0;
  }
  const fs::path run = fs::path(MLPROF_BENCH_DIR) / "xla_ops_data" / "tpu_x10";
  fs::create_directories(run);
  for (int k = 0; k < 10; ++k) {
    const fs::path copy = run / ("tpu-host-" + std::to_string(k) + ".xplane.pb");
    if (!fs::exists(copy)) fs::copy_file(kSource, copy);
  }
  return measure("TPU file", kSource) && measure("10 copies", run.string()) ? 0 : 1;
}
