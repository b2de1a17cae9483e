// diff: step time, breakdown and op changes between two runs.
#include <gtest/gtest.h>

#include "analysis/profile_diff.h"
#include "analysis/training_profile.h"

namespace mlprof::analysis {
namespace {

using namespace mlprof::testing;

TEST(ProfileDiff, FasterInputShowsInStepTimeBreakdownAndOps) {
  TrainingShape slow;  // 30 ms waiting + 70 ms compute
  TrainingShape fast = slow;
  fast.input_wait_ms = 5;
  fast.compute_ms = 80;
  const model::Profile a = import_space(training_space(slow)), b = import_space(training_space(fast));
  const FrameworkOpStats a_ops = compute_framework_op_stats(a), b_ops = compute_framework_op_stats(b);
  const ProfileDiff d = compute_profile_diff(compute_overview_page(a), a_ops, compute_overview_page(b), b_ops);
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
  const ProfileDiff d = compute_profile_diff(compute_overview_page(pa), compute_framework_op_stats(pa),
                                             compute_overview_page(pb), compute_framework_op_stats(pb));
  ASSERT_EQ(d.ops.size(), 2u);
  for (const auto& op : d.ops) EXPECT_EQ(op.status, op.name == "new_op" ? "added" : "removed");
}

}  // namespace
}  // namespace mlprof::analysis
