// The GPU timeline analyses on hand-built timelines whose answers are known by construction:
// idle gaps of each cause, launch-bound and late launches, queue length, full, partial and
// zero overlap, the scopes, and a rank 20 % slower than the others.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/gpu_timeline/counter_reducer.h"
#include "analysis/gpu_timeline/gpu_timeline.h"
#include "analysis/gpu_timeline_builder.h"
#include "analysis/pod_viewer.h"
#include "analysis/gpu_timeline/stragglers.h"

namespace mlprof::analysis {
namespace {

using namespace mlprof::testing;

double us_of(int64_t ps) { return double(ps) / 1e6; }

GpuTimeline timeline_of(const model::Profile& p, GpuScope scope = GpuScope::kHtaScope) {
  GpuTimelineOptions o;
  o.scope = scope;
  return compute_gpu_timeline(p, group_steps(p), o);
}

// One stream, five launches (µs):
//   call [0,5]    → sgemm [10,20]                  first item: no gap
//   call [6,26]   → tiny  [22,24]  gap 2, launched before it began: kernel wait; 2 µs on the
//                                   GPU for a 20 µs call: launch-bound
//   call [60,65]  → sgemm [70,80]  gap 46, launched after it began: host wait
//   call [66,71]  → sgemm [200,210] gap 120 ≥ 30 µs with the launch long done: other; delay 129
//   call [72,172] → sgemm [210,215] gap 0: kernel wait; a 100 µs call: runtime outlier
GpuTimelineBuilder five_launches() {
  GpuTimelineBuilder b;
  b.launch("cudaLaunchKernel", 0, 5, "sgemm", 7, 10, 10);
  b.launch("cudaLaunchKernel", 6, 20, "tiny", 7, 22, 2);
  b.launch("cudaLaunchKernel", 60, 5, "sgemm", 7, 70, 10);
  b.launch("cudaLaunchKernel", 66, 5, "sgemm", 7, 200, 10);
  b.launch("cudaLaunchKernel", 72, 100, "sgemm", 7, 210, 5);
  return b;
}

TEST(GpuIdleTime, EachGapGetsItsCause) {
  const GpuTimeline t = timeline_of(five_launches().profile());
  ASSERT_EQ(t.hosts.size(), 1u);
  const GpuIdleTime& idle = *t.hosts[0].idle;
  ASSERT_EQ(idle.streams.size(), 1u);
  const StreamIdleTime& s = idle.streams[0];
  EXPECT_EQ(s.stream_id, 7);
  EXPECT_DOUBLE_EQ(us_of(s.cause_ps[size_t(IdleCause::kHostWait)]), 46);
  EXPECT_DOUBLE_EQ(us_of(s.cause_ps[size_t(IdleCause::kKernelWait)]), 2);
  EXPECT_DOUBLE_EQ(us_of(s.cause_ps[size_t(IdleCause::kOther)]), 120);
  EXPECT_EQ(s.gaps[size_t(IdleCause::kKernelWait)], 2u);  // the 2 µs gap and the 0 µs one
  ASSERT_GE(idle.largest.size(), 2u);
  EXPECT_DOUBLE_EQ(us_of(idle.largest[0].length_ps), 120);
  EXPECT_EQ(idle.largest[0].cause, IdleCause::kOther);
  EXPECT_EQ(idle.largest[1].cause, IdleCause::kHostWait);
}

TEST(GpuTimeBreakdown, IdleAndComputeOfTheSpan) {
  const GpuTimeline t = timeline_of(five_launches().profile());
  const GpuTimeBreakdown& b = *t.hosts[0].breakdown;
  EXPECT_DOUBLE_EQ(us_of(b.span_ps), 205);  // 10 .. 215
  EXPECT_DOUBLE_EQ(us_of(b.times.busy_ps), 37);
  EXPECT_NEAR(b.idle_pct(), 100.0 * 168 / 205, 1e-9);
  EXPECT_NEAR(b.compute_pct(), 100.0 * 37 / 205, 1e-9);
  EXPECT_NEAR(b.non_compute_pct(), 0, 1e-9);
  EXPECT_NEAR(b.kind_pct(GpuWorkKind::kComputation), 100, 1e-9);
}

TEST(KernelLaunchStats, LaunchBoundLateAndSlowLaunches) {
  const GpuTimeline t = timeline_of(five_launches().profile());
  const KernelLaunchStats& k = *t.hosts[0].launches;
  EXPECT_EQ(k.launches, 5u);
  EXPECT_EQ(k.short_kernels, 1u);       // tiny: 2 µs of GPU for a 20 µs call
  EXPECT_EQ(k.runtime_outliers, 1u);    // the 100 µs call
  EXPECT_EQ(k.long_delay_kernels, 1u);  // 200 − 71 = 129 µs
  EXPECT_DOUBLE_EQ(k.median_launch_delay_us, 5);  // delays 5, 0, 5, 129, 38
  EXPECT_DOUBLE_EQ(k.max_launch_delay_us, 129);
  ASSERT_EQ(k.short_kernel_names.size(), 1u);
  EXPECT_EQ(k.short_kernel_names[0].name, "tiny");
  ASSERT_EQ(k.longest_delays.size(), 1u);
  EXPECT_DOUBLE_EQ(us_of(k.longest_delays[0].delay_ps), 129);
}

TEST(GpuQueueLength, LaunchedAndNotStarted) {
  const GpuTimeline t = timeline_of(five_launches().profile());
  const StreamQueueLength& q = (*t.hosts[0].queue)[0];
  // +1 at 0, 6, 60, 66, 72; −1 at 10, 22, 70, 200, 210.
  EXPECT_EQ(q.max, 2);
  EXPECT_EQ(q.changes, 10u);
  EXPECT_DOUBLE_EQ(q.mean_at_changes, 1.1);
  EXPECT_NEAR(q.mean, 308.0 / 210.0, 1e-12);
  // Every change, under the point limit: 1 2 1 2 1 2 1 0 1 0.
  std::vector<std::pair<int64_t, int64_t>> series;
  for (auto [us, value] : {std::pair{0, 1}, {6, 2}, {10, 1}, {22, 0}, {60, 1}, {66, 2}, {70, 1}, {72, 2}, {200, 1},
                           {210, 0}})
    series.push_back({us_ps(us), value});
  EXPECT_EQ(q.series, series);
}

TEST(CounterReducer, KeepsEveryPointUnderTheLimitAndTheLastAtOneTime) {
  CounterReducer r(0, 30, 8);
  r.add(0, 1);
  r.add(10, 5);
  r.add(10, 3);  // the same time: replaces the point before
  r.add(30, 0);
  EXPECT_EQ(r.finish(), (std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {10, 3}, {30, 0}}));
}

TEST(CounterReducer, OverTheLimitKeepsEachBucketsPeakAndLastValue) {
  // 100 points over [0, 99], a limit of 8: 4 buckets of 25. Values rise to a peak of 1000 at
  // 37, and a lone peak of 7 sits at 80; otherwise each point's value is its time mod 5.
  CounterReducer r(0, 99, 8);
  for (int64_t t = 0; t < 100; ++t) r.add(t, t == 37 ? 1000 : t == 80 ? 7 : t % 5);
  const std::vector<std::pair<int64_t, int64_t>> expected = {
      {4, 4}, {24, 4},     // [0, 25): the first 4 is the peak; it ends at 24
      {37, 1000}, {49, 4},  // [25, 50)
      {54, 4}, {74, 4},     // [50, 75)
      {80, 7}, {99, 4}};    // [75, 100)
  EXPECT_EQ(r.finish(), expected);
}

TEST(CounterReducer, EmptyBucketsAddNothing) {
  // 20 points at the two ends of [0, 1000], a limit of 8: of the 4 buckets, the middle two
  // are empty.
  CounterReducer r(0, 1000, 8);
  for (int64_t t = 0; t < 10; ++t) r.add(t, t);
  for (int64_t t = 991; t <= 1000; ++t) r.add(t, 1000 - t);
  EXPECT_EQ(r.finish(), (std::vector<std::pair<int64_t, int64_t>>{{9, 9}, {991, 9}, {1000, 0}}));
}

// Computation on stream 7 [0,100]; communication on stream 8 at `comm_begin` for 100 µs.
CommComputeOverlap overlap_with_comm_at(double comm_begin) {
  GpuTimelineBuilder b;
  b.kernel("volta_sgemm_128x64_nn", 7, 0, 100);
  if (comm_begin >= 0) b.kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 8, comm_begin, 100);
  return *timeline_of(b.profile()).hosts[0].overlap;
}

TEST(CommComputeOverlap, FullPartialZeroAndNone) {
  EXPECT_DOUBLE_EQ(*overlap_with_comm_at(0).overlap_pct(), 100);
  EXPECT_DOUBLE_EQ(*overlap_with_comm_at(50).overlap_pct(), 50);
  EXPECT_DOUBLE_EQ(us_of(overlap_with_comm_at(50).exposed_communication_ps()), 50);
  EXPECT_DOUBLE_EQ(*overlap_with_comm_at(100).overlap_pct(), 0);  // touching is no overlap
  EXPECT_DOUBLE_EQ(*overlap_with_comm_at(300).overlap_pct(), 0);
  EXPECT_FALSE(overlap_with_comm_at(-1).overlap_pct().has_value());
  GpuTimelineBuilder b;
  b.kernel("volta_sgemm_128x64_nn", 7, 0, 100);
  const auto j = to_json(timeline_of(b.profile()));
  EXPECT_TRUE(j["hosts"][0]["comm_compute_overlap"]["overlap_pct"].is_null());
}

TEST(GpuTimeBreakdown, KindsPerStreamAndShareOfBusyTime) {
  GpuTimelineBuilder b;
  b.kernel("volta_sgemm_128x64_nn", 7, 0, 100);
  b.kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 8, 50, 100);
  b.launch("cudaMemcpyAsync", 140, 2, "Memcpy HtoD (Pinned -> Device)", 9, 150, 50);
  const GpuTimeBreakdown bd = *timeline_of(b.profile()).hosts[0].breakdown;
  EXPECT_DOUBLE_EQ(us_of(bd.span_ps), 200);
  EXPECT_DOUBLE_EQ(us_of(bd.times.busy_ps), 200);
  EXPECT_NEAR(bd.compute_pct(), 50, 1e-9);
  EXPECT_NEAR(bd.non_compute_pct(), 50, 1e-9);
  EXPECT_NEAR(bd.kind_pct(GpuWorkKind::kCommunication), 50, 1e-9);
  EXPECT_NEAR(bd.kind_pct(GpuWorkKind::kMemory), 25, 1e-9);
  ASSERT_EQ(bd.streams.size(), 3u);
  EXPECT_DOUBLE_EQ(us_of(bd.streams[2].times.union_ps[size_t(GpuWorkKind::kMemory)]), 50);
}

// Three steps of 1 ms, each launching one 100 µs kernel.
GpuTimelineBuilder three_steps() {
  GpuTimelineBuilder b;
  for (int s = 0; s < 3; ++s) {
    const double t0 = 1000.0 * s;
    b.step(s, t0, 1000);
    b.launch("cudaLaunchKernel", t0 + 10, 5, "sgemm", 7, t0 + 400, 100);
  }
  return b;
}

TEST(GpuActivity, HtaScopeLeavesOutTheLastStep) {
  const model::Profile p = three_steps().profile();
  const auto g = group_steps(p);
  const GpuActivity hta = collect_gpu_activity(p, g, GpuScope::kHtaScope);
  ASSERT_EQ(hta.hosts.size(), 1u);
  EXPECT_EQ(hta.hosts[0].work.size(), 2u);
  EXPECT_NE(hta.hosts[0].scope_note.find("less its last step"), std::string::npos);
  EXPECT_EQ(collect_gpu_activity(p, g, GpuScope::kWholeProfile).hosts[0].work.size(), 3u);
  // Over the steps: the span is the steps' time, not the first to the last kernel.
  const GpuTimeline steps = timeline_of(p, GpuScope::kAnalysedSteps);
  const GpuTimeBreakdown& b = *steps.hosts[0].breakdown;
  EXPECT_DOUBLE_EQ(us_of(b.span_ps), 3000);
  EXPECT_DOUBLE_EQ(us_of(b.times.busy_ps), 300);
  EXPECT_NEAR(b.idle_pct(), 90, 1e-9);
  // No gap spans two steps.
  EXPECT_EQ(steps.hosts[0].idle->streams[0].idle_ps(), 0);
}

// Three ranks, four steps of 15 ms. Each computes, then joins an all-reduce that ends at 14 ms
// for everyone: rank2 computes 12 ms, the others 10 ms and wait 2 ms longer in the all-reduce.
model::Profile three_ranks() {
  model::Profile p;
  for (int r = 0; r < 3; ++r) {
    GpuTimelineBuilder b;
    const double compute = r == 2 ? 12000 : 10000;
    for (int s = 0; s < 4; ++s) {
      const double t0 = 15000.0 * s;
      b.step(s, t0, 15000);
      b.launch("cudaLaunchKernel", t0 + 1, 5, "volta_sgemm_128x64_nn", 7, t0 + 10, compute - 10);
      b.launch("cudaLaunchKernel", t0 + 7, 5, "ncclKernel_AllReduce_RING_LL_Sum_float", 8, t0 + compute,
               14000 - compute);
    }
    b.add_to(&p, "rank" + std::to_string(r));
  }
  return p;
}

TEST(Stragglers, ARankTwentyPercentSlower) {
  const model::Profile p = three_ranks();
  const StragglerAnalysis s = compute_stragglers(p, group_steps(p));
  ASSERT_EQ(s.ranks.size(), 3u);
  EXPECT_TRUE(s.uses_gpu_compute);
  ASSERT_EQ(s.straggler, 2);
  EXPECT_EQ(s.ranks[2].host, "rank2");
  // Every rank's all-reduce ends at 14 ms: rank2's starts 2 ms after the others'.
  EXPECT_EQ(s.matched_calls, 4u);
  EXPECT_EQ(s.lateness_from, "arrival");
  EXPECT_NEAR(s.ranks[2].late_ms, 2.0, 1e-9);
  EXPECT_NEAR(s.ranks[0].late_ms, -1.0, 1e-9);  // 1 ms before the median of rank1 and rank2
  EXPECT_EQ(s.ranks[2].latest_in, 4u);
  EXPECT_EQ(s.late_at, "ncclKernel_AllReduce_RING_LL_Sum_float");
  EXPECT_NEAR(s.late_per_step_ms, 2.0, 1e-9);
  // Its GEMM runs 2 ms longer, and its launching thread waits as long for the all-reduce.
  const auto gemm = std::find_if(s.causes.begin(), s.causes.end(),
                                 [](const StragglerCause& c) { return c.name == "volta_sgemm_128x64_nn (GPU)"; });
  ASSERT_NE(gemm, s.causes.end());
  EXPECT_NEAR(gemm->excess_ms, 2.0, 1e-9);
  EXPECT_NEAR(s.explained_ms, 2.0, 1e-9);
  EXPECT_NE(straggler_sentence(s).find("rank2 arrives 2.000 ms late at ncclKernel_AllReduce_RING_LL_Sum_float"),
            std::string::npos)
      << straggler_sentence(s);
  ASSERT_FALSE(s.steps.empty());
  for (const StragglerStep& step : s.steps) {
    EXPECT_EQ(s.ranks[step.ranks[step.slowest].rank].host, "rank2");
    EXPECT_EQ(step.latest, 2);
    EXPECT_NEAR(step.latest_late_ms, 2.0, 1e-9);
  }
  EXPECT_EQ(s.ranks[2].slowest_in, s.steps.size());
}

TEST(Stragglers, InThePodViewer) {
  const model::Profile p = three_ranks();
  const PodViewer pod = compute_pod_viewer(p);
  EXPECT_EQ(pod.stragglers.straggler, 2);
  const auto j = to_json(pod)["stragglers"];
  EXPECT_EQ(j["straggler"], "rank2");
  ASSERT_EQ(j["steps"].size(), 4u);
  EXPECT_EQ(j["steps"][0]["slowest"], "rank2");
  EXPECT_NEAR(j["late_ms"].get<double>(), 2.0, 1e-9);
  EXPECT_NEAR(j["ranks"][0]["wait_ms"].get<double>(), 2.0, 1e-9);
  EXPECT_NEAR(j["ranks"][2]["compute_ms"].get<double>(), 11.99, 1e-9);
}

TEST(Stragglers, EvenRanksHaveNone) {
  model::Profile p;
  for (int r = 0; r < 2; ++r) {
    GpuTimelineBuilder b;
    for (int s = 0; s < 4; ++s) {
      b.step(s, 15000.0 * s, 15000);
      b.launch("cudaLaunchKernel", 15000.0 * s + 1, 5, "sgemm", 7, 15000.0 * s + 10, 9000);
    }
    b.add_to(&p, "rank" + std::to_string(r));
  }
  EXPECT_EQ(compute_stragglers(p, group_steps(p)).straggler, -1);
}

TEST(GpuTimelineJson, RequiredKeysPerHost) {
  const auto j = to_json(timeline_of(five_launches().profile()));
  ASSERT_EQ(j["hosts"].size(), 1u);
  const auto& h = j["hosts"][0];
  EXPECT_EQ(h["host"], "rank0");
  for (const char* k : {"idle_pct", "compute_pct", "non_compute_pct"}) EXPECT_TRUE(h["gpu_time_breakdown"].contains(k)) << k;
  for (const char* k : {"computation", "communication", "memory"})
    EXPECT_TRUE(h["gpu_time_breakdown"]["kernel_type_pct"].contains(k)) << k;
  for (const char* k : {"stream", "idle_us", "host_wait_us", "kernel_wait_us", "other_us"})
    EXPECT_TRUE(h["gpu_idle_time"]["streams"][0].contains(k)) << k;
  EXPECT_TRUE(h["comm_compute_overlap"].contains("overlap_pct"));
  for (const char* k : {"launches", "short_kernels", "long_delay_kernels", "median_launch_delay_us"})
    EXPECT_TRUE(h["kernel_launch_stats"].contains(k)) << k;
  EXPECT_EQ(h["gpu_queue_length"]["streams"][0]["max"], 2);
}

}  // namespace
}  // namespace mlprof::analysis
