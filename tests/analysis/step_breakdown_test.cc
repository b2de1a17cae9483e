// Ground truth for steps and the step-time breakdown: stages that take known times.
#include <gtest/gtest.h>

#include "analysis/overview_page.h"
#include "analysis/step_breakdown.h"
#include "analysis/training_profile.h"

namespace mlprof::analysis {
namespace {

using namespace mlprof::testing;

double category_ms(const StepBreakdown& s, Category c) { return double(s.category_ps()[size_t(c)]) / 1e9; }

TEST(StepBreakdown, InputBoundRunIsHighlyInputBound) {
  const model::Profile p = import_space(training_space({}));
  const StepAnalysis sa = analyze_steps(p);
  EXPECT_EQ(sa.grouping.root_kind, "_r");
  EXPECT_EQ(sa.grouping.steps.size(), 20u);
  ASSERT_EQ(sa.steps.size(), 20u);  // no capture window says any was cut: all are analysed
  EXPECT_EQ(sa.steps.front().step_num, 0);
  EXPECT_EQ(sa.steps.back().step_num, 19);
  for (const StepBreakdown& s : sa.steps) {
    EXPECT_NEAR(double(s.duration_ps) / 1e9, 100.0, 1e-6);
    EXPECT_NEAR(category_ms(s, Category::kInput), 30.0, 1e-6);
    EXPECT_NEAR(category_ms(s, Category::kHostCompute), 70.0, 1e-6);
    EXPECT_NEAR(category_ms(s, Category::kOther), 0.0, 1e-6);
    EXPECT_EQ(category_ms(s, Category::kDeviceCompute), 0.0);  // no device: host compute carries the work
  }

  const OverviewPage page = compute_overview_page(p);
  EXPECT_NEAR(page.input_bound.input_pct, 30.0, 3.0);
  EXPECT_EQ(verdict_name(page.input_bound.verdict), "HIGHLY");
  EXPECT_NEAR(page.step_time_ms.avg, 100.0, 1e-6);
  EXPECT_NEAR(page.step_time_ms.stddev, 0.0, 1e-6);
  ASSERT_FALSE(page.recommendations.empty());
  bool names_bottleneck = false;
  for (const auto& r : page.recommendations) names_bottleneck |= r.text.find("FileRead") != std::string::npos;
  EXPECT_TRUE(names_bottleneck) << page.recommendations.front().text;
  EXPECT_EQ(page.environment.device_type, "CPU");
  EXPECT_EQ(page.environment.hosts.size(), 1u);
}

TEST(StepBreakdown, ComputeBoundRunIsNotInputBound) {
  TrainingShape shape;
  shape.input_wait_ms = 0.5;
  shape.compute_ms = 99.5;
  const OverviewPage page = compute_overview_page(import_space(training_space(shape)));
  EXPECT_NEAR(page.input_bound.input_pct, 0.5, 0.05);
  EXPECT_EQ(verdict_name(page.input_bound.verdict), "NOT");
  EXPECT_NEAR(page.breakdown_pct[size_t(Category::kHostCompute)], 99.5, 0.05);
}

TEST(StepBreakdown, VerdictThresholds) {
  TrainingShape moderate;
  moderate.input_wait_ms = 10;
  moderate.compute_ms = 90;
  EXPECT_EQ(verdict_name(compute_overview_page(import_space(training_space(moderate))).input_bound.verdict), "MODERATELY");

  TrainingShape untraced;  // 1 % input, 9 % of each step covered by nothing
  untraced.input_wait_ms = 1;
  untraced.compute_ms = 90;
  untraced.gap_ms = 9;
  const OverviewPage page = compute_overview_page(import_space(training_space(untraced)));
  EXPECT_EQ(verdict_name(page.input_bound.verdict), "POTENTIALLY");
  EXPECT_NEAR(page.breakdown_pct[size_t(Category::kOther)], 9.0, 0.01);
  bool warns_other = false;
  for (const auto& r : page.recommendations) warns_other |= r.text.find("Untraced time (other)") != std::string::npos;
  EXPECT_TRUE(warns_other);
}

TEST(StepBreakdown, FiveStepsOrFewerAreAllKept) {
  TrainingShape shape;
  shape.steps = 5;
  EXPECT_EQ(analyze_steps(import_space(training_space(shape))).steps.size(), 5u);
}

TEST(StepBreakdown, NoStepMarkersMakeOnePseudoStep) {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto* t = host.line(1, "main", 0);
  host.event(t, "work", 0, 10 * kPsPerMs);
  host.event(t, "work", 20 * kPsPerMs, 10 * kPsPerMs);
  const OverviewPage page = compute_overview_page(import_space(space));
  EXPECT_TRUE(page.whole_profile);
  ASSERT_EQ(page.steps.size(), 1u);
  EXPECT_NEAR(page.step_time_ms.avg, 30.0, 1e-9);
  EXPECT_NEAR(page.breakdown_pct[size_t(Category::kOther)], 100.0 / 3, 1e-6);
  ASSERT_FALSE(page.recommendations.empty());
  EXPECT_NE(page.recommendations.front().text.find("StepTrace"), std::string::npos);
}

// A host step that launches kernels: the launch is linked to its kernel by correlation id, a
// worker thread to the step by a producer/consumer context.
tensorflow::profiler::XSpace device_space(int steps) {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto gpu = add_plane(&space, 2, "/device:GPU:0");
  auto* main = host.line(1, "main", 0);
  auto* worker = host.line(2, "worker", 0);
  auto* stream = gpu.line(7, "Stream #7(Compute)", 0);
  auto* copies = gpu.line(8, "Stream #8(MemcpyH2D)", 0);
  for (int s = 0; s < steps; ++s) {
    const int64_t t0 = s * 20 * kPsPerMs;
    const uint64_t id = uint64_t(s) + 100;
    host.event(main, "train", t0, 10 * kPsPerMs,
               {{"step_num", int64_t(s)}, {"_r", int64_t(1)}, {"_pt", int64_t(1)}, {"_p", id}});
    host.event(main, "cudaMemcpyAsync", t0, 1 * kPsPerMs, {{"correlation_id", id * 10}});
    host.event(worker, "ExecutorState::Process", t0 + 1 * kPsPerMs, 8 * kPsPerMs, {{"_ct", int64_t(1)}, {"_c", id}});
    host.event(worker, "cudaLaunchKernel", t0 + 2 * kPsPerMs, 1 * kPsPerMs, {{"correlation_id", id * 10 + 1}});
    host.event(worker, "cudaLaunchKernel", t0 + 4 * kPsPerMs, 1 * kPsPerMs, {{"correlation_id", id * 10 + 2}});
    // Device: a copy, a 32-bit kernel of 6 ms and a half-precision one of 2 ms that ends after the host step.
    gpu.event(copies, "MemcpyH2D", t0 + 1 * kPsPerMs, 1 * kPsPerMs, {{"correlation_id", id * 10}});
    gpu.event(stream, "sgemm_kernel", t0 + 3 * kPsPerMs, 6 * kPsPerMs, {{"correlation_id", id * 10 + 1}});
    gpu.event(stream, "volta_h884gemm_kernel", t0 + 9 * kPsPerMs, 2 * kPsPerMs, {{"correlation_id", id * 10 + 2}});
  }
  return space;
}

TEST(StepBreakdown, DeviceWorkJoinsItsStepThroughLinks) {
  const model::Profile p = import_space(device_space(3));
  const StepAnalysis sa = analyze_steps(p);
  ASSERT_EQ(sa.steps.size(), 3u);
  for (const StepBreakdown& s : sa.steps) {
    // The device ran from 1 ms to 11 ms of the step, past the host's 10 ms, on launches made
    // inside the host span: the step runs from the host's start to the device's end (§5.1).
    EXPECT_NEAR(double(s.duration_ps) / 1e9, 11.0, 1e-9);
    EXPECT_NEAR(double(s.ps(Activity::kDeviceCompute32)) / 1e9, 6.0, 1e-9);
    EXPECT_NEAR(double(s.ps(Activity::kDeviceCompute16)) / 1e9, 2.0, 1e-9);
    EXPECT_NEAR(double(s.ps(Activity::kHostToDeviceCopy)) / 1e9, 1.0, 1e-9);
    // 2..3 ms is a launch on the worker (linked by _p/_c), nothing else runs then.
    EXPECT_NEAR(double(s.ps(Activity::kHostPrepareLaunch)) / 1e9, 1.0, 1e-9);
    EXPECT_NEAR(double(s.other_ps), 0.0, 1e-9);
  }
  const OverviewPage page = compute_overview_page(p);
  EXPECT_NEAR(page.bits16_pct, 25.0, 1e-9);
  EXPECT_NEAR(page.bits32_pct, 75.0, 1e-9);
  EXPECT_NEAR(page.breakdown_pct[size_t(Category::kInput)], 100.0 / 11, 1e-9);
  EXPECT_EQ(verdict_name(page.input_bound.verdict), "MODERATELY");
  EXPECT_EQ(page.environment.device_type, "GPU");
  EXPECT_EQ(page.environment.device_count, 1u);
  ASSERT_FALSE(page.top_ops.empty());
  EXPECT_TRUE(page.top_ops_on_device);
}

TEST(StepGrouping, GroupsFollowNestingLinksAndCorrelation) {
  const model::Profile p = import_space(device_space(2));
  const StepGrouping g = group_steps(p);
  ASSERT_EQ(g.steps.size(), 2u);
  for (model::EventIndex e = 0; e < p.num_events(); ++e) {
    const int64_t expected = p.start_ps(e) < 20 * kPsPerMs ? 0 : 1;
    EXPECT_EQ(g.group_of[e], expected) << p.name(e) << " at " << p.start_ps(e);
  }
}

}  // namespace
}  // namespace mlprof::analysis
