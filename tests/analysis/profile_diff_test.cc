// diff: step time, breakdown and op changes between two runs.
#include <gtest/gtest.h>

#include "analysis/profile_diff.h"
#include "analysis/training_profile.h"

namespace mlprof::analysis {
namespace {

using namespace mlprof::testing;

// The diff of two profiles as `mlprof diff` computes it from each whole run.
ProfileDiff diff_of(const model::Profile& a, const model::Profile& b, size_t max_ops = 20) {
  const StepAnalysis a_steps = analyze_steps(a), b_steps = analyze_steps(b);
  const OverviewPage a_page = compute_overview_page(a), b_page = compute_overview_page(b);
  const StepOpTimes a_ops = op_time_by_step(a, a_steps), b_ops = op_time_by_step(b, b_steps);
  return compute_profile_diff({a_page, a_ops}, {b_page, b_ops}, max_ops);
}

TEST(ProfileDiff, FasterInputShowsInStepTimeBreakdownAndOps) {
  TrainingShape slow;  // 30 ms waiting + 70 ms compute
  TrainingShape fast = slow;
  fast.input_wait_ms = 5;
  fast.compute_ms = 80;
  const model::Profile a = import_space(training_space(slow)), b = import_space(training_space(fast));
  const ProfileDiff d = diff_of(a, b);
  EXPECT_NEAR(d.step_time_ms.a, 100.0, 1e-6);
  EXPECT_NEAR(d.step_time_ms.b, 85.0, 1e-6);
  EXPECT_NEAR(d.step_time_ms.change(), -15.0, 1e-6);
  EXPECT_NEAR(d.step_time_ms.change_pct(), -15.0, 1e-6);
  EXPECT_NEAR(d.breakdown_ms[size_t(Category::kInput)].change(), -25.0, 1e-6);
  EXPECT_NEAR(d.breakdown_ms[size_t(Category::kHostCompute)].change(), 10.0, 1e-6);
  EXPECT_EQ(d.a_verdict, "HIGHLY");
  EXPECT_EQ(d.b_verdict, "MODERATELY");
  // backward's self time per step grew by 6 ms (60 % of compute), forward's by 4 ms.
  ASSERT_FALSE(d.ops.empty());
  bool backward = false;
  for (const auto& op : d.ops)
    if (op.name == "backward") {
      backward = true;
      EXPECT_EQ(op.status, "slower");
      EXPECT_NEAR(op.b_ms - op.a_ms, 6.0, 1e-6);
    }
  EXPECT_TRUE(backward);
  const nlohmann::json j = to_json(d);
  EXPECT_TRUE(j["breakdown_ms"].contains("input"));
  EXPECT_NEAR(j["step_time_ms"]["change_ms"].get<double>(), -15.0, 1e-6);
}

TEST(ProfileDiff, AddedAndRemovedOps) {
  tensorflow::profiler::XSpace a_space, b_space;
  auto a = add_plane(&a_space, 1, "/host:CPU");
  a.event(a.line(1, "t", 0), "old_op", 0, 10 * kPsPerUs);
  auto b = add_plane(&b_space, 1, "/host:CPU");
  b.event(b.line(1, "t", 0), "new_op", 0, 10 * kPsPerUs);
  const model::Profile pa = import_space(a_space), pb = import_space(b_space);
  const ProfileDiff d = diff_of(pa, pb);
  ASSERT_EQ(d.ops.size(), 2u);
  for (const auto& op : d.ops) EXPECT_EQ(op.status, op.name == "new_op" ? "added" : "removed");
}

// Seven 100 ms steps ("train" roots, steps 0 to 6), all analysed (§5.1: none was cut by the
// capture); "work" runs `work_ms` in the middle five, and "instant" for no time in step 3.
model::Profile seven_steps(double work_ms) {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto* main = host.line(1, "main", 0);
  for (int s = 0; s < 7; ++s) {
    const int64_t t0 = s * 100 * kPsPerMs;
    host.event(main, "train", t0, 100 * kPsPerMs, {{"step_num", int64_t(s)}, {"_r", int64_t(1)}});
    if (s > 0 && s < 6) host.event(main, "work", t0, int64_t(work_ms * kPsPerMs));
    if (s == 3) host.event(main, "instant", t0 + 50 * kPsPerMs, 0);
  }
  return import_space(space);
}

// Per step means per analysed step: 50 and 100 ms of work over the 7 steps compared, not per
// step that ran it (10 and 20 ms).
TEST(ProfileDiff, OpTimePerStepIsOverTheComparedSteps) {
  const ProfileDiff d = diff_of(seven_steps(10), seven_steps(20));
  EXPECT_EQ(d.steps_compared, StepsCompared::kSameSteps);
  EXPECT_EQ(d.a_compared, 7u);
  ASSERT_FALSE(d.ops.empty());
  EXPECT_EQ(d.ops[0].name, "work");
  EXPECT_EQ(d.ops[0].status, "slower");
  EXPECT_NEAR(d.ops[0].a_ms, 50.0 / 7, 1e-9);
  EXPECT_NEAR(d.ops[0].b_ms, 100.0 / 7, 1e-9);
}

// An op that ran in both runs, in no time, is neither added nor a change.
TEST(ProfileDiff, AnOpOfNoTimeInBothRunsIsNoChange) {
  const ProfileDiff d = diff_of(seven_steps(10), seven_steps(20));
  for (const auto& op : d.ops) EXPECT_NE(op.name, "instant") << op.status;
}

}  // namespace
}  // namespace mlprof::analysis
