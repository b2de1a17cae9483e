// The critical path read a window of steps at a time (step_windows.h) against one graph of the
// whole profile (the window size set to the profile's): on a real PyTorch trace and on a
// generated run shaped like analysis_bench's (steps whose workers consume the step's `_p`, launch
// kernels, and a loader beside them), forced into small windows. A step gets the same path in
// its window as in the whole graph: its window holds the step before it as context.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>

#include "analysis/critical_path/critical_path.h"
#include "analysis/critical_path/step_windows.h"
#include "analysis/step_breakdown.h"
#include "analysis/tool_registry.h"
#include "analysis/training_profile.h"
#include "testdata_files.h"

namespace mlprof::analysis {
namespace {

using namespace mlprof::testing;

constexpr size_t kWhole = std::numeric_limits<size_t>::max();

// Steps whose path or time by kind differ between the two, by more than `tolerance_ms`.
size_t steps_that_differ(const CriticalPath& whole, const CriticalPath& windowed, double tolerance_ms) {
  EXPECT_EQ(whole.steps.size(), windowed.steps.size());
  size_t differ = 0;
  for (size_t i = 0; i < std::min(whole.steps.size(), windowed.steps.size()); ++i) {
    const CriticalPathStep &a = whole.steps[i], &b = windowed.steps[i];
    EXPECT_EQ(a.step_num, b.step_num);
    bool same = std::abs(a.path_ms - b.path_ms) <= tolerance_ms;
    for (size_t k = 0; k < kNumPathKinds; ++k) same = same && std::abs(a.kind_ms[k] - b.kind_ms[k]) <= tolerance_ms;
    differ += !same;
  }
  return differ;
}

// The links found, each counted once though the windows' graphs overlap by their context;
// with `outside_steps`, the whole graph's also count those of work before the first step and
// after the last, which no window holds.
void expect_same_links(const CriticalPath& whole, const CriticalPath& windowed, bool outside_steps = false) {
  if (outside_steps) {
    EXPECT_LE(windowed.launch_links, whole.launch_links);
    EXPECT_GE(windowed.launch_links, whole.launch_links * 9 / 10);
    EXPECT_LE(windowed.sync_links, whole.sync_links);
    EXPECT_GE(windowed.sync_links, whole.sync_links * 9 / 10);
    return;
  }
  EXPECT_EQ(whole.launch_links, windowed.launch_links);
  EXPECT_EQ(whole.sync_links, windowed.sync_links);
  EXPECT_EQ(whole.consumer_links, windowed.consumer_links);
  EXPECT_EQ(whole.warnings, windowed.warnings);
}

// Every span in exactly one window, each window with a step, each context the step before.
void expect_windows_tile(const std::vector<StepWindow>& windows, size_t spans) {
  std::vector<int> seen(spans, 0);
  for (const StepWindow& w : windows) {
    EXPECT_FALSE(w.own.empty());
    for (uint32_t i : w.own) ++seen[i];
  }
  for (size_t i = 0; i < spans; ++i) EXPECT_EQ(seen[i], 1) << "span " << i;
}

// A run like analysis_bench's: per step, the main thread's step (producing `_p` = step) with an
// input wait and ops; workers consuming it, each op launching a kernel on the worker's stream;
// a loader thread beside them.
model::Profile bench_like(int steps) {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto gpu = add_plane(&space, 2, "/device:GPU:0");
  auto* main = host.line(1, "main", 0);
  auto* loader = host.line(2, "loader", 0);
  constexpr int kWorkers = 3, kBlocks = 20;
  decltype(main) workers[kWorkers];
  decltype(main) streams[kWorkers];
  for (int w = 0; w < kWorkers; ++w) {
    workers[w] = host.line(10 + w, "worker", 0);
    streams[w] = gpu.line(20 + w, "Stream #" + std::to_string(20 + w) + "(Compute)", 0);
  }
  const int64_t us = 1'000'000, step_ps = 10'000 * us;
  uint64_t correlation = 0;
  for (int s = 0; s < steps; ++s) {
    const int64_t t0 = s * step_ps;
    host.event(main, "train", t0, step_ps,
               {{"step_num", int64_t(s)}, {"_r", int64_t(1)}, {"_pt", int64_t(1)}, {"_p", int64_t(s)}});
    host.event(main, "Iterator::Prefetch", t0, 3'000 * us);
    host.event(main, "forward", t0 + 3'000 * us, 3'000 * us);
    host.event(main, "backward", t0 + 6'500 * us, 3'000 * us);
    for (int w = 0; w < kWorkers; ++w) {
      const int64_t begin = t0 + 3'000 * us, block = 300 * us;
      host.event(workers[w], "ExecutorState::Process", begin, kBlocks * block,
                 {{"_ct", int64_t(1)}, {"_c", int64_t(s)}});
      for (int b = 0; b < kBlocks; ++b) {
        const int64_t at = begin + b * block;
        host.event(workers[w], "aten::op_" + std::to_string((b + w) % 7), at, 250 * us);
        ++correlation;
        host.event(workers[w], "cudaLaunchKernel", at + 100 * us, 20 * us, {{"correlation_id", correlation}});
        // Kernels queue behind each other and run past the launching op (and, for the last, the step).
        gpu.event(streams[w], "sgemm_" + std::to_string(b % 5), at + 150 * us + (b % 3) * 200 * us, 280 * us,
                  {{"correlation_id", correlation}});
      }
    }
    for (int i = 0; i < 4; ++i) {
      host.event(loader, "Iterator::Prefetch::Map", t0 + i * 2'500 * us, 2'000 * us);
      host.event(loader, "Iterator::Prefetch::Map::FileRead", t0 + i * 2'500 * us + 200 * us, 1'500 * us);
    }
  }
  return import_space(space);
}

TEST(CriticalPathWindows, GeneratedRunGivesTheWholeGraphsPaths) {
  const model::Profile p = bench_like(24);
  const StepAnalysis steps = analyze_steps(p);
  ASSERT_EQ(steps.steps.size(), 24u);
  const size_t window = p.num_events() / 6;
  const std::vector<StepWindow> windows = step_windows(p, steps, step_spans(steps), window);
  ASSERT_GE(windows.size(), 5u);
  expect_windows_tile(windows, steps.steps.size());
  const CriticalPath whole = compute_critical_path(p, steps, {}, WhatIfDefaults::kAdd, kWhole);
  const CriticalPath windowed = compute_critical_path(p, steps, {}, WhatIfDefaults::kAdd, window);
  EXPECT_EQ(steps_that_differ(whole, windowed, 1e-9), 0u);
  EXPECT_NEAR(whole.path_ms, windowed.path_ms, 1e-9);
  expect_same_links(whole, windowed);
  ASSERT_EQ(whole.what_if.size(), windowed.what_if.size());
  for (size_t i = 0; i < whole.what_if.size(); ++i) {
    EXPECT_EQ(whole.what_if[i].target, windowed.what_if[i].target);
    EXPECT_NEAR(whole.what_if[i].step_ms, windowed.what_if[i].step_ms, 1e-6 * whole.path_ms) << whole.what_if[i].target;
    EXPECT_EQ(whole.what_if[i].reaches_steps, windowed.what_if[i].reaches_steps) << whole.what_if[i].target;
  }
  EXPECT_EQ(whole.bottleneck(), windowed.bottleneck());
  EXPECT_NEAR(whole.bottleneck_change.step_ms, windowed.bottleneck_change.step_ms, 1e-6 * whole.path_ms);
}

// The file under ../shared/testdata read whole and in windows of about three steps.
void expect_windows_give_whole_paths(const std::string& file) {
  model::Profile p;
  if (!load_testdata_profile(file, &p)) GTEST_SKIP() << file << " not found (it is in ../shared/testdata)";
  const StepAnalysis steps = analyze_steps(p);
  ASSERT_GE(steps.steps.size(), 9u);
  const size_t window = 3 * p.num_events() / steps.steps.size();
  const std::vector<StepWindow> windows = step_windows(p, steps, step_spans(steps), window);
  ASSERT_GE(windows.size(), 3u);
  expect_windows_tile(windows, steps.steps.size());
  const CriticalPath whole = compute_critical_path(p, steps, {}, WhatIfDefaults::kAdd, kWhole);
  const CriticalPath windowed = compute_critical_path(p, steps, {}, WhatIfDefaults::kAdd, window);
  EXPECT_EQ(steps_that_differ(whole, windowed, 1e-9), 0u);
  EXPECT_NEAR(whole.path_ms, windowed.path_ms, 1e-9);
  expect_same_links(whole, windowed, true);
  ASSERT_EQ(whole.top_ops.size(), windowed.top_ops.size());
  for (size_t i = 0; i < whole.top_ops.size(); ++i) {
    EXPECT_EQ(whole.top_ops[i].name, windowed.top_ops[i].name);
    EXPECT_NEAR(whole.top_ops[i].ms, windowed.top_ops[i].ms, 1e-9);
  }
  // The what-ifs may differ: a replayed change runs on from step to step through the whole graph
  // (a device behind its host catches up over steps once its work is halved), while each window
  // starts from its context step as measured. The paths above, as measured, are the same.
  ASSERT_EQ(whole.what_if.size(), windowed.what_if.size());
  for (size_t i = 0; i < whole.what_if.size(); ++i) {
    EXPECT_EQ(whole.what_if[i].target, windowed.what_if[i].target);
    EXPECT_LE(windowed.what_if[i].step_ms, windowed.path_ms * (1 + 1e-9)) << windowed.what_if[i].target;
  }
  // A target that names nothing is refused whether or not the profile is read in windows.
  EXPECT_THROW(compute_critical_path(p, steps, {{"no_such_op", 0}}, WhatIfDefaults::kAdd, window), ToolRequestError);
}

TEST(CriticalPathWindows, PyTorchTraceGivesTheWholeGraphsPaths) {
  expect_windows_give_whole_paths("wild/param/param__et_replay_tests_inputs_resnet_kineto.json.gz");
}

TEST(CriticalPathWindows, TpuProfileGivesTheWholeGraphsPaths) {
  expect_windows_give_whole_paths("wild/xprof/xprof__xprof_convert_test_xplanes_tpu_inference_2.xplane.pb");
}

}  // namespace
}  // namespace mlprof::analysis
