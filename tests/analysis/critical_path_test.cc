// The critical path on hand-built CUDA programs whose host calls and kernels take known times,
// with the path worked out by hand; and bad input: a dependency that goes back in time, a
// what-if target that names nothing.
//
// One 10 ms step (times in ms from its start):
//   host    train [0,10]: cudaLaunchKernel [0.5,0.7]  cudaStreamSynchronize [1,9]  optimizer [9,10]
//   device  sgemm [1,8] (launched by the call at 0.5)
// The path, back from the step's end: optimizer 1 ms (host); the synchronisation ends 1 ms after
// the kernel (the runtime's return: kernel_launch); the kernel 7 ms (device_compute); its launch
// 0.5 ms before it (kernel_launch); the step's own 0.5 ms before the launch (host). The wait
// itself weighs nothing. Halving device compute: the kernel ends at 4.5, the synchronisation
// at 5.5, the step at 6.5.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/critical_path/critical_path.h"
#include "analysis/step_breakdown.h"
#include "analysis/tool_registry.h"
#include "analysis/training_profile.h"

namespace mlprof::analysis {
namespace {

using namespace mlprof::testing;

int64_t at_ms(double ms) { return int64_t(ms * 1e9); }

// Seven such steps; with `skewed`, the kernel of
// step 3 is recorded 0.4 ms before its launch (a device clock ahead of the host's); with
// `sync_returns_at_end`, each synchronisation returns at the very instant its kernel ends (8 ms).
model::Profile program(bool skewed, bool root_produces = false, bool sync_returns_at_end = false) {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto gpu = add_plane(&space, 2, "/device:GPU:0");
  auto* main = host.line(1, "main", 0);
  auto* stream = gpu.line(7, "Stream #7(Compute)", 0);
  for (int s = 0; s < 7; ++s) {
    const double t0 = 10.0 * s;
    auto at = [&](double ms) { return at_ms(t0 + ms); };
    const uint64_t id = uint64_t(s + 1);
    if (root_produces)  // as PyTorch's ProfilerStep: the context its other threads consume
      host.event(main, "train", at(0), at_ms(10),
                 {{"step_num", int64_t(s)}, {"_r", int64_t(1)}, {"_p", int64_t(7)}, {"_pt", int64_t(3)}});
    else
      host.event(main, "train", at(0), at_ms(10), {{"step_num", int64_t(s)}, {"_r", int64_t(1)}});
    host.event(main, "cudaLaunchKernel", at(0.5), at_ms(0.2), {{"correlation_id", id}});
    host.event(main, "cudaStreamSynchronize", at(1.0), at_ms(sync_returns_at_end ? 7.0 : 8.0));
    host.event(main, "optimizer", at(9.0), at_ms(1.0));
    const double start = skewed && s == 3 ? 0.1 : 1.0;
    gpu.event(stream, "volta_sgemm_128x64_nn", at(start), at_ms(8.0 - start), {{"correlation_id", id}});
  }
  return import_space(space);
}

double kind_ms(const CriticalPath& c, PathKind k) { return c.kind_ms[size_t(k)]; }

TEST(CriticalPath, ASynchronisedKernelStepByHand) {
  const model::Profile p = program(false);
  const CriticalPath c = compute_critical_path(p, analyze_steps(p), {{"device_compute", 0.5}, {"optimizer", 0}});
  ASSERT_EQ(c.steps.size(), 7u);
  EXPECT_NEAR(c.step_ms, 10, 1e-9);
  EXPECT_NEAR(c.path_ms, 10, 1e-9);
  EXPECT_NEAR(kind_ms(c, PathKind::kHost), 1.5, 1e-9);
  EXPECT_NEAR(kind_ms(c, PathKind::kKernelLaunch), 1.5, 1e-9);
  EXPECT_NEAR(kind_ms(c, PathKind::kDeviceCompute), 7, 1e-9);
  EXPECT_NEAR(kind_ms(c, PathKind::kIdle), 0, 1e-9);
  EXPECT_EQ(c.sync_links, 7u);
  ASSERT_EQ(c.top_kernels.size(), 1u);
  EXPECT_EQ(c.top_kernels[0].name, "volta_sgemm_128x64_nn");
  ASSERT_EQ(c.what_if.size(), 2u);
  EXPECT_NEAR(c.what_if[0].step_ms, 6.5, 1e-9);  // device compute halved
  EXPECT_NEAR(c.what_if[1].step_ms, 9, 1e-9);    // no optimizer
  EXPECT_EQ(c.bottleneck(), PathKind::kDeviceCompute);
  EXPECT_TRUE(c.warnings.empty());
}

// The step's own marker ("train", 0.5 ms on the path: the time before the launch) spans the
// step: it is no top op and no default what-if (removing it would remove the step); the
// optimizer, 1 ms of the 10, is both.
TEST(CriticalPath, TheStepMarkerIsNoTopOpAndNoWhatIf) {
  const model::Profile p = program(false);
  const CriticalPath c = compute_critical_path(p, analyze_steps(p), {}, WhatIfDefaults::kAdd);
  std::vector<std::string> ops, targets;
  for (const PathTime& t : c.top_ops) ops.push_back(t.name);
  for (const auto& w : c.what_if) targets.push_back(w.target);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "train"), 0) << ::testing::PrintToString(ops);
  EXPECT_EQ(std::count(targets.begin(), targets.end(), "train"), 0) << ::testing::PrintToString(targets);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "optimizer"), 1) << ::testing::PrintToString(ops);
  EXPECT_EQ(std::count(targets.begin(), targets.end(), "optimizer"), 2) << ::testing::PrintToString(targets);
}

// A step root that produces the step's context (PyTorch's ProfilerStep does) is the step, not
// input: the path is the same as without the link, no time of it input.
TEST(CriticalPath, AStepRootThatProducesIsNotInput) {
  const model::Profile p = program(false, /*root_produces=*/true);
  const CriticalPath c = compute_critical_path(p, analyze_steps(p), {}, WhatIfDefaults::kNone);
  EXPECT_NEAR(kind_ms(c, PathKind::kInput), 0, 1e-9);
  EXPECT_NEAR(kind_ms(c, PathKind::kHost), 1.5, 1e-9);
  EXPECT_EQ(c.bottleneck(), PathKind::kDeviceCompute);
}

// A loader thread the program does not link to its steps (no `_p`/`_c`): reading a batch 6 ms
// each step beside the 10 ms steps. Halving it gains nothing in the replay, and the prediction
// says that nothing links it to the steps, not that it is off the critical path; the optimizer,
// on the step's thread, reaches them.
TEST(CriticalPath, WorkNotLinkedToTheStepsIsSaidToBe) {
  tensorflow::profiler::XSpace space;
  auto host = add_plane(&space, 1, "/host:CPU");
  auto* main = host.line(1, "main", 0);
  auto* loader = host.line(2, "loader", 0);
  for (int s = 0; s < 7; ++s) {
    const double t0 = 10.0 * s;
    host.event(main, "train", at_ms(t0), at_ms(10), {{"step_num", int64_t(s)}, {"_r", int64_t(1)}});
    host.event(main, "forward", at_ms(t0 + 0.5), at_ms(8.5));
    host.event(main, "optimizer", at_ms(t0 + 9), at_ms(1));
    host.event(loader, "FileRead", at_ms(t0 + 1), at_ms(6));
  }
  const model::Profile p = import_space(space);
  const CriticalPath c = compute_critical_path(p, analyze_steps(p), {{"FileRead", 0.5}, {"optimizer", 0}});
  ASSERT_EQ(c.what_if.size(), 2u);
  EXPECT_NEAR(c.what_if[0].step_ms, 10, 1e-9);
  EXPECT_FALSE(c.what_if[0].reaches_steps);
  EXPECT_NEAR(c.what_if[1].step_ms, 9, 1e-9);
  EXPECT_TRUE(c.what_if[1].reaches_steps);
}

// The overview's summary of the path (PathDetail::kSummary) gives the same time by kind, ops and
// predictions as the whole path, without the segments the trace viewer draws, and without
// predicting the untraced gaps' removal. Removing device compute: the kernel takes no time at
// 1 ms, the synchronisation returns at 2, the optimizer ends the step at 3.
TEST(CriticalPath, TheSummaryGivesTheSameFiguresWithoutSegments) {
  const model::Profile p = program(false);
  const StepAnalysis steps = analyze_steps(p);
  const CriticalPath full =
      compute_critical_path_of_spans(p, steps, step_spans(steps), {{"optimizer", 0}}, WhatIfDefaults::kNone);
  const CriticalPath summary = compute_critical_path_of_spans(p, steps, step_spans(steps), {{"optimizer", 0}},
                                                              WhatIfDefaults::kNone, PathDetail::kSummary);
  ASSERT_EQ(summary.steps.size(), 7u);
  EXPECT_FALSE(full.steps[0].path.segments.empty());
  for (const CriticalPathStep& s : summary.steps) EXPECT_TRUE(s.path.segments.empty());
  for (size_t k = 0; k < kNumPathKinds; ++k) EXPECT_EQ(summary.kind_ms[k], full.kind_ms[k]) << k;
  EXPECT_NEAR(summary.removed_step_ms[size_t(PathKind::kDeviceCompute)], 3, 1e-9);
  EXPECT_EQ(summary.removed_step_ms[size_t(PathKind::kDeviceCompute)],
            full.removed_step_ms[size_t(PathKind::kDeviceCompute)]);
  EXPECT_EQ(summary.removed_step_ms[size_t(PathKind::kIdle)], summary.path_ms);
  ASSERT_EQ(summary.top_ops.size(), full.top_ops.size());
  EXPECT_EQ(summary.top_ops[0].name, full.top_ops[0].name);
  ASSERT_EQ(summary.what_if.size(), 1u);
  EXPECT_NEAR(summary.what_if[0].step_ms, 9, 1e-9);  // no optimizer
  EXPECT_EQ(summary.bottleneck(), PathKind::kDeviceCompute);
  EXPECT_NEAR(summary.bottleneck_change.step_ms, 6.5, 1e-9);  // device compute halved
}

TEST(CriticalPath, ADependencyBackInTimeIsCutAndCounted) {
  const model::Profile p = program(true);
  const CriticalPath c = compute_critical_path(p, analyze_steps(p));
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0], "1 dependencies went back in time (clock skew or broken flows) and were cut");
  EXPECT_NEAR(c.step_ms, 10, 1e-9);
}

// The graph as a replay reads it: each node's in-edges together, from earlier nodes, each edge's
// target, source, weight and kind kept together through the renumbering; the cut edge gone.
// Each kernel is one device_compute edge from its start to its end weighing its 7 ms (7.9 ms
// for the skewed one, recorded from 0.1 ms).
TEST(CriticalPath, TheGraphKeepsEachEdgeWholeGroupedByTargetAndDropsTheCutOne) {
  const model::Profile fine = program(false), skewed = program(true);
  const DependencyGraph g = build_dependency_graph(fine, analyze_steps(fine));
  const DependencyGraph cut = build_dependency_graph(skewed, analyze_steps(skewed));
  EXPECT_EQ(g.cut_edges, 0u);
  EXPECT_EQ(cut.cut_edges, 1u);
  EXPECT_EQ(cut.edges.size() + 1, g.edges.size());
  for (const DependencyGraph* graph : {&g, &cut}) {
    ASSERT_EQ(graph->edge_from.size(), graph->edges.size());
    ASSERT_EQ(graph->edge_weight_ps.size(), graph->edges.size());
    ASSERT_EQ(graph->in_first.size(), graph->num_nodes() + 1);
    EXPECT_EQ(graph->in_first.back(), graph->edges.size());
    std::vector<int64_t> kernels_ps;
    for (uint32_t v = 0; v < graph->num_nodes(); ++v)
      for (uint32_t k = graph->in_first[v]; k < graph->in_first[v + 1]; ++k) {
        EXPECT_EQ(graph->edges[k].to, v);
        EXPECT_LT(graph->edge_from[k], v);
        if (graph->edges[k].kind != PathKind::kDeviceCompute) continue;
        kernels_ps.push_back(graph->edge_weight_ps[k]);
        EXPECT_EQ(graph->anchor_ps[graph->edge_from[k]] + graph->edge_weight_ps[k], graph->anchor_ps[v]);
      }
    std::sort(kernels_ps.begin(), kernels_ps.end());
    std::vector<int64_t> expected(7, at_ms(7.0));
    if (graph == &cut) expected.back() = at_ms(7.9);
    EXPECT_EQ(kernels_ps, expected);
  }
}

// A synchronisation that returns the instant its kernel ends: the kernel's end (made after the
// host's instants) and the call's end are of one time, the call's after the kernel's; the
// numbering still puts every edge forward. By hand: the launch 0.5 ms after the step's start
// (host), 0.5 ms to the kernel (kernel_launch), the kernel 7 ms, the return at once, then the
// step's own 1 ms before the optimizer and the optimizer's 1 ms (host).
TEST(CriticalPath, ASyncReturningAsItsKernelEndsIsOrderedAfterIt) {
  const model::Profile p = program(false, false, true);
  const StepAnalysis steps = analyze_steps(p);
  const DependencyGraph g = build_dependency_graph(p, steps);
  EXPECT_EQ(g.cut_edges, 0u);
  ASSERT_EQ(g.in_first.size(), g.num_nodes() + 1);
  for (uint32_t v = 0; v < g.num_nodes(); ++v)
    for (uint32_t k = g.in_first[v]; k < g.in_first[v + 1]; ++k) {
      EXPECT_EQ(g.edges[k].to, v);
      EXPECT_LT(g.edge_from[k], v);
      EXPECT_LE(g.anchor_ps[g.edge_from[k]], g.anchor_ps[v]);
    }
  const CriticalPath c = compute_critical_path(p, steps);
  ASSERT_EQ(c.steps.size(), 7u);
  EXPECT_NEAR(c.path_ms, 10, 1e-9);
  EXPECT_NEAR(kind_ms(c, PathKind::kHost), 2.5, 1e-9);
  EXPECT_NEAR(kind_ms(c, PathKind::kKernelLaunch), 0.5, 1e-9);
  EXPECT_NEAR(kind_ms(c, PathKind::kDeviceCompute), 7, 1e-9);
  EXPECT_EQ(c.sync_links, 7u);
}

TEST(CriticalPath, AWhatIfTargetThatNamesNothingListsCloseNames) {
  const model::Profile p = program(false);
  try {
    compute_critical_path(p, analyze_steps(p), {{"optimiser", 0}});
    FAIL() << "no usage error";
  } catch (const ToolRequestError& e) {
    EXPECT_NE(std::string(e.what()).find("'optimiser' names no kind, category, op or kernel"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("optimizer"), std::string::npos) << e.what();
  }
  // A target of invalid UTF-8 is echoed repaired (U+FFFD), and the step's own marker ("train")
  // is never offered: it spans the step.
  try {
    compute_critical_path(p, analyze_steps(p), {{"tra\xffin", 0}});
    FAIL() << "no usage error";
  } catch (const ToolRequestError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'tra\xEF\xBF\xBDin' names no kind"), std::string::npos) << message;
    EXPECT_EQ(message.find('\xff'), std::string::npos) << message;
    const std::string close = message.substr(message.find("close names: "));
    EXPECT_EQ(close.find("train,"), std::string::npos) << close;
    EXPECT_FALSE(close.ends_with("train")) << close;
  }
  EXPECT_THROW(parse_what_ifs("input=2"), ToolRequestError);
  EXPECT_THROW(parse_what_ifs("input"), ToolRequestError);
  const std::vector<WhatIfChange> two = parse_what_ifs("input=0\naten::mm=0.5");
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[1].target, "aten::mm");
  EXPECT_EQ(two[1].scale, 0.5);
}

}  // namespace
}  // namespace mlprof::analysis
