// framework_op_stats: self and total times exact on hand-built nested events.
#include <gtest/gtest.h>

#include "analysis/framework_op_stats.h"
#include "analysis/training_profile.h"

namespace mlprof::analysis {
namespace {

using namespace mlprof::testing;

const OpStatsRow* find(const FrameworkOpStats& s, const std::string& name, bool device) {
  for (const auto& r : s.rows)
    if (r.name == name && r.on_device == device) return &r;
  return nullptr;
}

// A [0,100) holds B [10,40) which holds C [15,20), and D [50,60); a second B [200,210) stands
// alone; a non-op allocator record inside A does not count; E holds F through a non-op.
tensorflow::profiler::XSpace nested_space() {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto* t = host.line(1, "main", 0);
  host.event(t, "A", 0, 100 * kPsPerUs);
  host.event(t, "B", 10 * kPsPerUs, 30 * kPsPerUs);
  host.event(t, "C", 15 * kPsPerUs, 5 * kPsPerUs);
  host.event(t, "MemoryAllocation", 42 * kPsPerUs, 1 * kPsPerUs);
  host.event(t, "D", 50 * kPsPerUs, 10 * kPsPerUs);
  host.event(t, "B", 200 * kPsPerUs, 10 * kPsPerUs);
  auto* u = host.line(2, "other", 0);
  host.event(u, "E", 0, 40 * kPsPerUs);
  host.event(u, "ExecutorState::Process", 5 * kPsPerUs, 30 * kPsPerUs);  // not an op
  host.event(u, "F", 10 * kPsPerUs, 20 * kPsPerUs);
  return space;
}

TEST(FrameworkOpStats, SelfAndTotalTimesAreExact) {
  const FrameworkOpStats s = compute_framework_op_stats(import_space(nested_space()));
  struct Expected {
    const char* name;
    uint64_t count;
    int64_t total_us, self_us;
  };
  for (const Expected& e : {Expected{"A", 1, 100, 60}, Expected{"B", 2, 40, 35}, Expected{"C", 1, 5, 5},
                            Expected{"D", 1, 10, 10}, Expected{"E", 1, 40, 20}, Expected{"F", 1, 20, 20}}) {
    const OpStatsRow* r = find(s, e.name, false);
    ASSERT_NE(r, nullptr) << e.name;
    EXPECT_EQ(r->occurrences, e.count) << e.name;
    EXPECT_EQ(r->total_ps, e.total_us * kPsPerUs) << e.name;
    EXPECT_EQ(r->self_ps, e.self_us * kPsPerUs) << e.name;
    EXPECT_EQ(r->type, e.name);  // names without a TensorFlow type are their own type
  }
  EXPECT_EQ(find(s, "MemoryAllocation", false), nullptr);
  EXPECT_EQ(find(s, "ExecutorState::Process", false), nullptr);
  EXPECT_EQ(s.host_self_ps, 150 * kPsPerUs);
  // Rank order, percentages and their running sum.
  EXPECT_EQ(s.rows.front().name, "A");
  EXPECT_NEAR(s.rows.front().self_pct, 40.0, 1e-9);
  EXPECT_NEAR(s.rows.back().cumulative_self_pct, 100.0, 1e-9);
  EXPECT_EQ(s.host_by_op.size(), 6u);

  const std::string csv = to_csv(s);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);  // header + one row per op
  EXPECT_NE(csv.find("host_or_device,type,operation"), std::string::npos);
}

TEST(FrameworkOpStats, IdleTimeIsAnOptionalRow) {
  const model::Profile p = import_space(nested_space());
  const FrameworkOpStats s = compute_framework_op_stats(p, {.include_idle = true});
  const OpStatsRow* idle = find(s, "IDLE", false);
  ASSERT_NE(idle, nullptr);
  // The host span is 0..210 us; ops cover 0..100 and 200..210.
  EXPECT_EQ(idle->self_ps, 100 * kPsPerUs);
  EXPECT_EQ(find(compute_framework_op_stats(p), "IDLE", false), nullptr);
}

TEST(FrameworkOpStats, TensorFlowNamesAndDeviceOps) {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto* t = host.line(1, "main", 0);
  host.event(t, "dense/MatMul:MatMul", 0, 10 * kPsPerUs);
  host.event(t, "ExecutorPropagateOutputs", 20 * kPsPerUs, 10 * kPsPerUs);  // runtime, not an op
  host.event(t, "dense/BiasAdd:BiasAdd", 40 * kPsPerUs, 10 * kPsPerUs);
  host.event(t, "cuLaunchKernel", 41 * kPsPerUs, 1 * kPsPerUs, {{"correlation_id", uint64_t(5)}});
  auto gpu = add_plane(&space, 2, "/device:GPU:0");
  auto* stream = gpu.line(1, "Stream #1(Compute)", 0);
  gpu.event(stream, "sgemm", 0, 7 * kPsPerUs, {{"tf_op", std::string("dense/MatMul:MatMul")}});
  gpu.event(stream, "bias_kernel", 45 * kPsPerUs, 3 * kPsPerUs, {{"correlation_id", uint64_t(5)}});
  const FrameworkOpStats s = compute_framework_op_stats(import_space(space));
  EXPECT_EQ(find(s, "ExecutorPropagateOutputs", false), nullptr);
  ASSERT_NE(find(s, "dense/MatMul:MatMul", false), nullptr);
  EXPECT_EQ(find(s, "dense/MatMul:MatMul", false)->type, "MatMul");
  const OpStatsRow* matmul = find(s, "dense/MatMul:MatMul", true);
  ASSERT_NE(matmul, nullptr);
  EXPECT_EQ(matmul->self_ps, 7 * kPsPerUs);
  const OpStatsRow* bias = find(s, "dense/BiasAdd:BiasAdd", true);  // named through the launch
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->self_ps, 3 * kPsPerUs);
  EXPECT_NEAR(bias->self_pct, 30.0, 1e-9);
  // Device rows come first.
  EXPECT_TRUE(s.rows.front().on_device);
}

}  // namespace
}  // namespace mlprof::analysis
