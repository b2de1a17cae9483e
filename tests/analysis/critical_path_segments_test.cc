// The critical path as segments for the trace viewer, on a hand-built CUDA program whose path is
// known (times in ms from the step's start):
//   host    train [0,10]: cudaLaunchKernel [0.5,0.7]  cudaStreamSynchronize [1,9]  optimizer [9,10]
//   device  sgemm [1,8] (launched by the call at 0.5)
// Forwards from the step's start: train's own 0.5 ms before the launch (host); the launch's
// 0.5 ms to the kernel's start (kernel_launch); the kernel 7 ms (device_compute); the runtime's
// 1 ms return from the synchronisation (kernel_launch); the optimizer 1 ms (host). The wait in
// cudaStreamSynchronize weighs nothing and is not a segment.
#include <gtest/gtest.h>

#include "analysis/critical_path/critical_path.h"
#include "analysis/step_breakdown.h"
#include "analysis/training_profile.h"

namespace mlprof::analysis {
namespace {

using namespace mlprof::testing;

int64_t at_ms(double ms) { return int64_t(ms * 1e9); }

model::Profile program(int steps) {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto gpu = add_plane(&space, 2, "/device:GPU:0");
  auto* main = host.line(1, "main", 0);
  auto* stream = gpu.line(7, "Stream #7(Compute)", 0);
  for (int s = 0; s < steps; ++s) {
    const double t0 = 10.0 * s;
    auto at = [&](double ms) { return at_ms(t0 + ms); };
    const uint64_t id = uint64_t(s + 1);
    host.event(main, "train", at(0), at_ms(10), {{"step_num", int64_t(s)}, {"_r", int64_t(1)}});
    host.event(main, "cudaLaunchKernel", at(0.5), at_ms(0.2), {{"correlation_id", id}});
    host.event(main, "cudaStreamSynchronize", at(1.0), at_ms(8.0));
    host.event(main, "optimizer", at(9.0), at_ms(1.0));
    gpu.event(stream, "volta_sgemm_128x64_nn", at(1.0), at_ms(7.0), {{"correlation_id", id}});
  }
  return import_space(space);
}

struct Expected {
  const char* kind;
  const char* name;  // "" where the segment names no single event
  double start_ms, duration_ms;
};

TEST(CriticalPathSegments, AStepsPathInTimeOrderByHand) {
  const model::Profile p = program(3);
  const CriticalPath c = compute_critical_path(p, analyze_steps(p));
  ASSERT_EQ(c.steps.size(), 3u);
  const CriticalPathStep& step = c.steps[1];  // from 10 ms
  const std::vector<Expected> expected = {
      {"host", "train", 10.0, 0.5},
      {"kernel_launch", "cudaLaunchKernel", 10.5, 0.5},
      {"device_compute", "volta_sgemm_128x64_nn", 11.0, 7.0},
      {"kernel_launch", "cudaStreamSynchronize", 18.0, 1.0},
      {"host", "optimizer", 19.0, 1.0},
  };
  const auto& segs = step.path.segments;
  ASSERT_EQ(segs.size(), expected.size());
  EXPECT_EQ(step.path.left_out, 0u);
  for (size_t i = 0; i < segs.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(path_kind_key(segs[i].kind), expected[i].kind);
    if (*expected[i].name) {
      EXPECT_EQ(segs[i].name, expected[i].name);
    }
    EXPECT_NEAR(double(segs[i].start_ps) / 1e9, expected[i].start_ms, 1e-6);
    EXPECT_NEAR(double(segs[i].duration_ps) / 1e9, expected[i].duration_ms, 1e-6);
  }
  // Each segment with an event names its line as the trace viewer does: the kernel's stream.
  ASSERT_NE(segs[2].event, model::kNone);
  EXPECT_EQ(segs[2].line, p.line_index(segs[2].event));
  EXPECT_EQ(p.strings.view(p.line_of(segs[2].event).name), "Stream #7(Compute)");
  EXPECT_EQ(segs[2].host, c.steps[1].host);
}

TEST(CriticalPathSegments, TheJsonCarriesThemInTheToolsClock) {
  const model::Profile p = program(2);
  const nlohmann::json j = to_json(compute_critical_path(p, analyze_steps(p)));
  const nlohmann::json& path = j["steps"][0]["path"];
  ASSERT_EQ(path["segments"].size(), 5u);
  const nlohmann::json& kernel = path["segments"][2];
  EXPECT_EQ(kernel["kind"], "device_compute");
  EXPECT_EQ(kernel["name"], "volta_sgemm_128x64_nn");
  EXPECT_NEAR(kernel["start_ms"].get<double>(), 1.0, 1e-9);
  EXPECT_NEAR(kernel["duration_ms"].get<double>(), 7.0, 1e-9);
  EXPECT_TRUE(kernel.contains("event") && kernel.contains("line"));
  EXPECT_FALSE(kernel.contains("host"));  // the step's own host goes unsaid
  EXPECT_EQ(path["left_out"], 0);
}

// Over a cap of two: the segments under the second longest (1 ms) that follow each other on one
// line, train's 0.5 ms and the launch's 0.5 ms on the host thread, run together into one 1 ms
// segment of that line; of the four left, the two longest stay (the kernel, then the first 1 ms
// one: the run), the synchronisation's return and the optimizer are counted as left out.
TEST(CriticalPathSegments, OverTheCapShortOnesRunTogetherThenTheLongestStay) {
  const model::Profile p = program(1);
  const StepAnalysis steps = analyze_steps(p);
  const DependencyGraph g = build_dependency_graph(p, steps);
  const Replay r = replay(g, nullptr, 1, true);
  const StepPathSegments s = path_segments(p, g, r, critical_path(g, r, g.steps[0]), g.steps[0], 2);
  ASSERT_EQ(s.segments.size(), 2u);
  const PathSegment& run = s.segments[0];
  EXPECT_EQ(run.merged, 2u);
  EXPECT_EQ(run.event, model::kNone);
  EXPECT_EQ(p.strings.view(p.lines[run.line].name), "main");
  EXPECT_NEAR(double(run.start_ps) / 1e9, 0.0, 1e-6);
  EXPECT_NEAR(double(run.duration_ps) / 1e9, 1.0, 1e-6);
  EXPECT_EQ(s.segments[1].name, "volta_sgemm_128x64_nn");
  EXPECT_EQ(s.left_out, 2u);
  EXPECT_NEAR(double(s.left_out_ps) / 1e9, 1.0 + 1.0, 1e-6);
}

TEST(CriticalPathSegments, StepsBeyondTheListedOnesCountTheirsAsLeftOut) {
  const model::Profile p = program(int(kMaxStepsWithSegments) + 2);
  const CriticalPath c = compute_critical_path(p, analyze_steps(p));
  ASSERT_GT(c.steps.size(), kMaxStepsWithSegments);
  EXPECT_FALSE(c.steps[kMaxStepsWithSegments - 1].path.segments.empty());
  EXPECT_TRUE(c.steps[kMaxStepsWithSegments].path.segments.empty());
  EXPECT_EQ(c.steps[kMaxStepsWithSegments].path.left_out, 5u);
}

// The listed steps share kMaxSegmentsListed (3200): one step may list all of it, 32 or more
// list 200 each (the floor), and the 33rd on none.
TEST(CriticalPathSegments, FewStepsListMoreOfEach) {
  EXPECT_EQ(segments_cap(0, 1), 3200u);
  EXPECT_EQ(segments_cap(3, 4), 800u);
  EXPECT_EQ(segments_cap(0, 100), 200u);
  EXPECT_EQ(segments_cap(31, 100), 200u);
  EXPECT_EQ(segments_cap(32, 100), 0u);
}

}  // namespace
}  // namespace mlprof::analysis
