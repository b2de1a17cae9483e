// The timeline's advice rules on hand-built timelines: each rule fires on the timeline made to
// trigger it, with its evidence, and a clean timeline triggers none.
#include <gtest/gtest.h>

#include "analysis/gpu_timeline_builder.h"
#include "analysis/overview_page.h"
#include "analysis/gpu_timeline/timeline_rules.h"

namespace mlprof::analysis {
namespace {

using namespace mlprof::testing;

struct Shape {
  bool sync_copy = false, blocking_sync = false, tiny_kernels = false, exposed_comm = false;
};

// Three 10 ms steps. Clean: one 6 ms kernel and an all-reduce under it.
GpuTimelineBuilder steps_with(const Shape& shape) {
  GpuTimelineBuilder b;
  for (int s = 0; s < 3; ++s) {
    const double t0 = 10000.0 * s;
    b.step(s, t0, 10000);
    b.launch("cudaLaunchKernel", t0 + 10, 5, "volta_sgemm_128x64_nn", 7, t0 + 100, 6000);
    if (shape.exposed_comm) {
      b.launch("cudaLaunchKernel", t0 + 20, 5, "ncclKernel_AllReduce_RING_LL_Sum_float", 8, t0 + 6100, 3000);
    } else {
      b.launch("cudaLaunchKernel", t0 + 20, 5, "ncclKernel_AllReduce_RING_LL_Sum_float", 8, t0 + 2000, 3000);
    }
    if (shape.sync_copy) {  // 500 µs, 5 % of the step
      b.host("aten::copy_", t0 + 30, 600);
      b.host("cudaMemcpy", t0 + 40, 500);
    }
    if (shape.blocking_sync) {  // 1 ms, 10 % of the step
      b.host("aten::item", t0 + 7000, 1100);
      b.host("cudaStreamSynchronize", t0 + 7010, 1000);
    }
    if (shape.tiny_kernels)  // 150 kernels of 1 µs, each launched by a 5 µs call
      for (int k = 0; k < 150; ++k)
        b.launch("cudaLaunchKernel", t0 + 9000 + 6.0 * k, 5, "vectorized_elementwise_kernel", 9,
                 t0 + 9003 + 6.0 * k, 1);
  }
  return b;
}

std::vector<TimelineAdvice> advice_for(const model::Profile& p) { return timeline_advice(p, group_steps(p)); }

const TimelineAdvice* find(const std::vector<TimelineAdvice>& advice, TimelineRule rule) {
  for (const TimelineAdvice& a : advice)
    if (a.rule == rule) return &a;
  return nullptr;
}

TEST(TimelineRules, ACleanTimelineGetsNoAdvice) {
  const auto advice = advice_for(steps_with({}).profile());
  for (const auto& a : advice) ADD_FAILURE() << a.text;
}

TEST(TimelineRules, SynchronousCopies) {
  const auto advice = advice_for(steps_with({.sync_copy = true}).profile());
  const TimelineAdvice* a = find(advice, TimelineRule::kSyncCopies);
  ASSERT_NE(a, nullptr);
  EXPECT_NEAR(a->ms_per_step, 0.5, 1e-9);
  EXPECT_EQ(a->op, "aten::copy_");
  EXPECT_NE(a->text.find("5.0% of the step time"), std::string::npos) << a->text;
  EXPECT_EQ(advice.size(), 1u);
}

TEST(TimelineRules, BlockingSynchronize) {
  const auto advice = advice_for(steps_with({.blocking_sync = true}).profile());
  const TimelineAdvice* a = find(advice, TimelineRule::kBlockingSync);
  ASSERT_NE(a, nullptr);
  EXPECT_NEAR(a->ms_per_step, 1.0, 1e-9);
  EXPECT_EQ(a->op, "aten::item");
  EXPECT_NE(a->text.find("10.0% of the step time"), std::string::npos) << a->text;
  EXPECT_EQ(advice.size(), 1u);
}

TEST(TimelineRules, ManyTinyKernels) {
  const auto advice = advice_for(steps_with({.tiny_kernels = true}).profile());
  const TimelineAdvice* a = find(advice, TimelineRule::kTinyKernels);
  ASSERT_NE(a, nullptr);
  EXPECT_NE(a->text.find("450 of 456 launches"), std::string::npos) << a->text;
  EXPECT_NE(a->text.find("vectorized_elementwise_kernel"), std::string::npos) << a->text;
  EXPECT_EQ(advice.size(), 1u);
}

TEST(TimelineRules, LowOverlap) {
  const auto advice = advice_for(steps_with({.exposed_comm = true}).profile());
  const TimelineAdvice* a = find(advice, TimelineRule::kLowOverlap);
  ASSERT_NE(a, nullptr);
  EXPECT_NEAR(a->ms_per_step, 3.0, 1e-9);  // the whole all-reduce is exposed
  EXPECT_EQ(advice.size(), 1u);
}

TEST(TimelineRules, StragglerRank) {
  model::Profile p;
  for (int r = 0; r < 3; ++r) {
    GpuTimelineBuilder b;
    const double compute = r == 1 ? 12000 : 10000;
    for (int s = 0; s < 4; ++s) {
      const double t0 = 15000.0 * s;
      b.step(s, t0, 15000);
      b.launch("cudaLaunchKernel", t0 + 1, 5, "volta_sgemm_128x64_nn", 7, t0 + 10, compute - 10);
      // The all-reduce follows the compute; every rank leaves it at 14 ms.
      b.launch("cudaLaunchKernel", t0 + 7, 5, "ncclKernel_AllReduce_RING_LL_Sum_float", 8, t0 + compute,
               14000 - compute);
    }
    b.add_to(&p, "rank" + std::to_string(r));
  }
  const auto advice = advice_for(p);
  const TimelineAdvice* a = find(advice, TimelineRule::kStragglerRank);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->host, "rank1");
  EXPECT_NE(a->text.find("rank1 arrives 2.000 ms late at ncclKernel_AllReduce_RING_LL_Sum_float"), std::string::npos)
      << a->text;
}

TEST(TimelineRules, InTheOverviewsRecommendations) {
  const model::Profile p = steps_with({.blocking_sync = true}).profile();
  const OverviewPage page = compute_overview_page(p);
  bool found = false;
  for (const Recommendation& r : page.recommendations) found |= r.text.find("Blocking synchronisation") != std::string::npos;
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace mlprof::analysis
