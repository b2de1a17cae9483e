// One event's details: its stats, its step, and the flows to its kernel or its consumer.
#include <gtest/gtest.h>

#include "analysis/trace_viewer/trace_event_details.h"
#include "analysis/trace_test_profile.h"

namespace mlprof {
namespace {

TEST(TraceEventDetails, LaunchHasItsStatsStepAndKernel) {
  const model::Profile p = testing::trace_test_profile();
  const auto steps = analysis::group_steps(p);
  const auto flows = analysis::find_trace_flows(p);
  const auto launch = testing::find_event(p, "cudaLaunchKernel");
  const auto d = analysis::trace_event_details(p, steps, flows, launch, 0);
  EXPECT_EQ(d["name"], "cudaLaunchKernel");
  EXPECT_EQ(d["line"], "main");
  EXPECT_EQ(d["start_ps"], 20'000'000);
  EXPECT_EQ(d["duration_ps"], 5'000'000);
  EXPECT_EQ(d["parent"]["name"], "forward");
  ASSERT_EQ(d["stats"].size(), 1u);
  EXPECT_EQ(d["stats"][0]["name"], "correlation_id");
  EXPECT_EQ(d["stats"][0]["value"], 42);
  ASSERT_TRUE(d["step"].is_object());
  EXPECT_EQ(d["step"]["step_num"], 7);
  ASSERT_EQ(d["flows"].size(), 1u);
  EXPECT_EQ(d["flows"][0]["direction"], "out");
  EXPECT_EQ(d["flows"][0]["kind"], "launch");
  EXPECT_EQ(d["flows"][0]["name"], "kernel_a");
}

TEST(TraceEventDetails, KernelAndConsumerSeeWhereTheirFlowsComeFrom) {
  const model::Profile p = testing::trace_test_profile();
  const auto steps = analysis::group_steps(p);
  const auto flows = analysis::find_trace_flows(p);
  const auto kernel = analysis::trace_event_details(p, steps, flows, testing::find_event(p, "kernel_a"), 0);
  ASSERT_EQ(kernel["flows"].size(), 1u);
  EXPECT_EQ(kernel["flows"][0]["direction"], "in");
  EXPECT_EQ(kernel["flows"][0]["name"], "cudaLaunchKernel");
  EXPECT_EQ(kernel["step"]["step_num"], 7);  // joined through the correlation id
  const auto consumer = analysis::trace_event_details(p, steps, flows, testing::find_event(p, "dequeue"), 0);
  ASSERT_EQ(consumer["flows"].size(), 1u);
  EXPECT_EQ(consumer["flows"][0]["kind"], "producer_consumer");
  EXPECT_EQ(consumer["flows"][0]["name"], "enqueue");
  EXPECT_EQ(consumer["stats"].size(), 2u);
}

}  // namespace
}  // namespace mlprof
