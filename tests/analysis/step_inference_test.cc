// Steps that are the program's (§5.1): found without markers from the device's repeated module
// runs or the loop's DataLoader fetches, and left out only when the capture cut them. Stage
// times are known: the profiles are written with them.
#include <gtest/gtest.h>

#include "analysis/input_pipeline_analyzer.h"
#include "analysis/overview_page.h"
#include "analysis/step_breakdown.h"
#include "analysis/step_inference.h"
#include "analysis/tf_data_bottleneck_analysis.h"
#include "analysis/training_profile.h"

namespace mlprof::analysis {
namespace {

using namespace mlprof::testing;

constexpr int64_t kOriginNs = 1'700'000'000'000'000'000;
double ms_of(int64_t ps) { return double(ps) / 1e9; }

// A JAX-like GPU run with no step markers: "jit_train_step" runs 5 times, one every 25 ms,
// 10 ms each, with an 8 ms kernel inside each run; "jit_init" runs once (a longer module that
// does not repeat) and "jit_convert" 5 times, shortly.
tensorflow::profiler::XSpace module_run_space() {
  tensorflow::profiler::XSpace space;
  space.add_hostnames("tpu-host");
  auto host = add_plane(&space, 1, "/host:CPU");
  auto* main = host.line(100, "python", kOriginNs);
  auto gpu = add_plane(&space, 2, "/device:GPU:0");
  auto* modules = gpu.line(1, "XLA Modules", kOriginNs);
  auto* stream = gpu.line(7, "Stream #7(Compute)", kOriginNs);
  host.event(main, "setup", 0, 2 * kPsPerMs);
  gpu.event(modules, "jit_init", 2 * kPsPerMs, 40 * kPsPerMs);
  const int64_t first = 50 * kPsPerMs, period = 25 * kPsPerMs;
  for (int i = 0; i < 5; ++i) {
    const int64_t t = first + i * period;
    host.event(main, "dispatch", t - kPsPerMs, kPsPerMs / 2);
    gpu.event(modules, "jit_train_step", t, 10 * kPsPerMs);
    gpu.event(stream, "fusion_matmul", t + kPsPerMs, 8 * kPsPerMs);
    gpu.event(modules, "jit_convert", t + 12 * kPsPerMs, kPsPerMs);
  }
  return space;
}

TEST(StepInference, StepsFromTheDevicesRepeatedModuleRuns) {
  const model::Profile p = import_space(module_run_space(), "tpu-host");
  const StepAnalysis sa = analyze_steps(p);
  EXPECT_EQ(sa.grouping.root_kind, kModuleRunSteps);
  ASSERT_EQ(sa.grouping.steps.size(), 5u);
  // The last run's step has no next run to end it: the capture stopped inside it.
  EXPECT_EQ(sa.grouping.left_out.cut_at_end, 1u);
  ASSERT_EQ(sa.steps.size(), 4u);
  for (const StepBreakdown& s : sa.steps) {
    EXPECT_NEAR(ms_of(s.duration_ps), 25.0, 1e-6);
    EXPECT_NEAR(ms_of(s.category_ps()[size_t(Category::kDeviceCompute)]), 8.0, 1e-6);
  }
  const OverviewPage page = compute_overview_page(p);
  EXPECT_EQ(step_source_words(page.step_marker), "found from the device's repeated module runs");
  EXPECT_EQ(steps_left_out_words(page.steps_left_out), "1 was cut by the capture's stop");
}

// A loop without step markers: each iteration fetches its batch (30 ms) and computes (20 ms).
tensorflow::profiler::XSpace fetch_loop_space(int iterations) {
  tensorflow::profiler::XSpace space;
  space.add_hostnames("trainer");
  auto host = add_plane(&space, 1, "/host:CPU");
  auto* main = host.line(100, "python", kOriginNs);
  for (int i = 0; i < iterations; ++i) {
    const int64_t t = i * 50 * kPsPerMs;
    host.event(main, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t, 30 * kPsPerMs);
    host.event(main, "train_step", t + 30 * kPsPerMs, 20 * kPsPerMs);
  }
  return space;
}

TEST(StepInference, StepsFromTheLoopsDataLoaderFetches) {
  const model::Profile p = import_space(fetch_loop_space(6));
  const StepAnalysis sa = analyze_steps(p);
  EXPECT_EQ(sa.grouping.root_kind, kDataLoaderFetchSteps);
  EXPECT_EQ(sa.grouping.steps.size(), 6u);
  EXPECT_EQ(sa.grouping.left_out.cut_at_end, 1u);  // the last fetch's step runs to the capture's stop
  ASSERT_EQ(sa.steps.size(), 5u);
  for (const StepBreakdown& s : sa.steps) {
    EXPECT_NEAR(ms_of(s.duration_ps), 50.0, 1e-6);
    EXPECT_NEAR(ms_of(s.category_ps()[size_t(Category::kInput)]), 30.0, 1e-6);  // the fetch is the step's input
    EXPECT_NEAR(ms_of(s.category_ps()[size_t(Category::kHostCompute)]), 20.0, 1e-6);
  }
  const OverviewPage page = compute_overview_page(p);
  EXPECT_NEAR(page.input_bound.input_pct, 60.0, 1e-6);
  EXPECT_EQ(step_source_words(page.step_marker), "found from the loop's repeated DataLoader fetches");
}

TEST(StepInference, MarkedStepsAreAllKeptWithoutACaptureWindow) {
  const StepAnalysis sa = analyze_steps(import_space(training_space({})));
  EXPECT_EQ(sa.grouping.steps.size(), 20u);
  EXPECT_EQ(sa.steps.size(), 20u);  // none is known to be cut: none is left out
  EXPECT_EQ(sa.grouping.left_out.total(), 0u);
}

// The capture started 1 ms into step 0 and stopped 50 ms into step 19 (100 ms steps).
TEST(StepInference, StepsTheCaptureCutAreLeftOut) {
  tensorflow::profiler::XSpace space = training_space({});
  auto env = add_plane(&space, 80, "Task Environment");
  env.plane_stat("profile_start_time", uint64_t(kOriginNs + 1'000'000));
  env.plane_stat("profile_stop_time", uint64_t(kOriginNs + 1'950'000'000));
  const model::Profile p = import_space(space);
  const StepAnalysis sa = analyze_steps(p);
  EXPECT_EQ(sa.grouping.left_out.cut_at_start, 1u);
  EXPECT_EQ(sa.grouping.left_out.cut_at_end, 1u);
  ASSERT_EQ(sa.steps.size(), 18u);
  EXPECT_EQ(sa.steps.front().step_num, 1);
  EXPECT_EQ(sa.steps.back().step_num, 18);
  const OverviewPage page = compute_overview_page(p);
  EXPECT_EQ(steps_left_out_words(page.steps_left_out),
            "1 began before the capture started, 1 was cut by the capture's stop");
  EXPECT_EQ(to_json(page)["summary"]["steps_left_out"], steps_left_out_words(page.steps_left_out));
}

// A synchronous input stage on the step's thread (no loader thread): every tool reads one
// pipeline, Iterator::Prefetch, whose bottleneck is FileRead.
TEST(StepInference, SynchronousInputStageIsAPipelineForEveryTool) {
  tensorflow::profiler::XSpace space;
  space.add_hostnames("trainer");
  auto host = add_plane(&space, 1, "/host:CPU");
  auto* main = host.line(100, "main", kOriginNs);
  for (int s = 0; s < 8; ++s) {
    const int64_t t = s * 100 * kPsPerMs;
    host.event(main, "train", t, 100 * kPsPerMs, {{"step_num", int64_t(s)}, {"_r", int64_t(1)}});
    host.event(main, "Iterator::Prefetch::Map::FileRead", t, 30 * kPsPerMs);
    host.event(main, "train_step", t + 30 * kPsPerMs, 70 * kPsPerMs);
  }
  const model::Profile p = import_space(space);
  const StepAnalysis sa = analyze_steps(p);
  const TfDataBottleneckAnalysis tf_data = compute_tf_data_bottleneck_analysis(p, sa);
  ASSERT_EQ(tf_data.pipelines.size(), 1u);
  const InputPipeline& pl = tf_data.pipelines.front();
  EXPECT_EQ(pl.name, "Iterator::Prefetch");
  EXPECT_EQ(pl.calls, 8u);
  EXPECT_NEAR(ms_of(pl.max_ps), 30.0, 1e-6);
  ASSERT_GE(pl.bottleneck, 0);
  EXPECT_EQ(pl.nodes[size_t(pl.bottleneck)].long_name, "Iterator::Prefetch::Map::FileRead");

  const OverviewPage page = compute_overview_page(p);
  EXPECT_EQ(verdict_name(page.input_bound.verdict), "HIGHLY");
  bool names_it = false;
  for (const auto& r : page.recommendations) names_it |= r.text.find("Iterator::Prefetch::Map::FileRead") != std::string::npos;
  EXPECT_TRUE(names_it);
}

// Steps marked around the work only (ProfilerStep#N, 20 ms) with the batch fetched between them
// (80 ms): 80 % of the loop's time is outside every step.
TEST(StepInference, FetchBetweenStepsIsTold) {
  tensorflow::profiler::XSpace space;
  space.add_hostnames("trainer");
  auto host = add_plane(&space, 1, "/host:CPU");
  auto* main = host.line(100, "python", kOriginNs);
  for (int s = 0; s < 5; ++s) {
    const int64_t t = s * 100 * kPsPerMs;
    host.event(main, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t, 80 * kPsPerMs);
    host.event(main, "ProfilerStep#" + std::to_string(s), t + 80 * kPsPerMs, 20 * kPsPerMs);
    host.event(main, "train_step", t + 80 * kPsPerMs, 20 * kPsPerMs);
  }
  const model::Profile p = import_space(space);
  const StepAnalysis sa = analyze_steps(p);
  const FetchOutsideSteps fetch = fetch_outside_steps(p, sa);
  EXPECT_NEAR(ms_of(fetch.outside_ps), 400.0, 1e-6);
  EXPECT_NEAR(ms_of(fetch.steps_ps), 100.0, 1e-6);
  const OverviewPage page = compute_overview_page(p);
  ASSERT_FALSE(page.recommendations.empty());
  EXPECT_TRUE(page.recommendations.front().text.starts_with(
      "80 % of the time is in enumerate(DataLoader), outside every step: fetch it inside"))
      << page.recommendations.front().text;
  // The input tool says the same, first.
  const InputPipelineAnalysis input = compute_input_pipeline_analysis(p, sa);
  ASSERT_FALSE(input.recommendations.empty());
  EXPECT_EQ(input.recommendations.front(), page.recommendations.front().text);
}

}  // namespace
}  // namespace mlprof::analysis
