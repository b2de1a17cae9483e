// Waits on recorded CUDA events in the critical path (event_waits.h), against Holistic Trace
// Analysis's critical path on the two traces of its own event-synchronisation tests.
//
// Expected values: HolisticTraceAnalysis 0.6.1, run from its public source
// (github.com/facebookresearch/HolisticTraceAnalysis, tag v0.6.1) with Debian's Python packages:
//   TraceAnalysis(trace_dir).critical_path_analysis(rank=0, annotation=A, instance_id=I)
//   (hta/analyzers/critical_path_analysis.py: CriticalPathAnalysis.critical_path_analysis), then
//   CPGraph.get_critical_path_breakdown(): the sum of `duration` is the path's length, the rows on
//   a stream name the kernels on it.
//   - event_sync_trace, A = "ProfilerStep", I = 0: 2411 us; one kernel, spin_kernel (36 us), and
//     one synchronisation edge: from it to cudaEventSynchronize (event 1533's record).
//   - multi_stream_event_sync_trace, A = "aten::matmul": I = 0: 561 us, ampere_sgemm_128x64_nn
//     (123 us); I = 1: 287 us, no kernel; I = 2: 412 us, ampere_sgemm_128x64_nn and two
//     "Memset (Device)" rows.
//
// Where mlprof differs, and why:
//   - event_sync's step: HTA's edges between two ops on a thread weigh nothing, so its path
//     leaves out the 743 us of the step that no op covers; mlprof's path is the step (3154 us),
//     the same kernel on it.
//   - multi_stream I = 1: HTA's path ends with the op (287 us); mlprof's instance ends when the
//     work launched inside it does, the sgemm's end (397 us: longer by the kernel and the wait
//     for it). I = 0 and 2: 567 and 417 us, within 2 %.
//   - The stream wait of multi_stream (stream 24 waits for the sgemm recorded on stream 20, 19 ms
//     earlier) is outside every matmul window, so neither tool's window path goes through it; it
//     is checked as an edge of the graph.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "analysis/critical_path/critical_path.h"
#include "analysis/critical_path/dependency_graph.h"
#include "analysis/critical_path/longest_path.h"
#include "analysis/step_breakdown.h"
#include "model/load_profile.h"
#include "testdata_files.h"

namespace mlprof::analysis {
namespace {

constexpr const char* kEventSync = "wild/hta_extra/hta__critical_path_cuda_event_sync_event_sync_trace.json.gz";
constexpr const char* kMultiStream =
    "wild/hta_extra/hta__critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz";

bool load(const std::string& file, model::Profile* p) { return testing::load_testdata_profile(file, p); }

#define LOAD_OR_SKIP(file, p) \
  if (!load(file, &p)) GTEST_SKIP() << file << " not found (it is in ../shared/testdata)"

// The first event named `name` whose correlation id is `correlation`.
model::EventIndex event_of(const model::Profile& p, std::string_view name, int64_t correlation) {
  for (model::EventIndex e = 0; e < p.num_events(); ++e)
    if (p.name(e).starts_with(name)) {
      const auto c = p.stat(e, model::kCorrelationId);
      if (c && c->as_int() == correlation) return e;
    }
  return model::kNone;
}

// Whether the graph holds an edge from an instant at `from_ps` to one at `to_ps` for which
// `match` holds.
template <typename Match>
bool has_edge(const DependencyGraph& g, int64_t from_ps, int64_t to_ps, Match match) {
  for (uint32_t k = 0; k < g.edges.size(); ++k)
    if (g.anchor_ps[g.edge_from[k]] == from_ps && g.anchor_ps[g.edges[k].to] == to_ps && match(g.edges[k])) return true;
  return false;
}

TEST(CriticalPathEventWaits, EventSynchronizeWaitsForTheRecordedKernelAsInHta) {
  model::Profile p;
  LOAD_OR_SKIP(kEventSync, p);
  const StepAnalysis steps = analyze_steps(p);
  const DependencyGraph g = build_dependency_graph(p, steps);
  const model::EventIndex kernel = event_of(p, "at::cuda::(anonymous namespace)::spin_kernel", 1526);
  const model::EventIndex sync = event_of(p, "cudaEventSynchronize", 1536);
  ASSERT_NE(kernel, model::kNone);
  ASSERT_NE(sync, model::kNone);
  EXPECT_TRUE(has_edge(g, p.end_ps(kernel), p.end_ps(sync), [&](const PathEdge& e) { return e.owner == sync; }));
  const CriticalPath c = compute_critical_path(p, steps);
  ASSERT_EQ(c.steps.size(), 1u);
  EXPECT_NEAR(c.steps[0].path_ms, 3.154, 0.001);  // the step; HTA's 2.411 ms leaves out the gaps
  ASSERT_EQ(c.steps[0].top_kernels.size(), 1u);    // HTA: one kernel, 36 us
  EXPECT_EQ(c.steps[0].top_kernels[0].name, "at::cuda::(anonymous namespace)::spin_kernel(long)");
  EXPECT_NEAR(c.steps[0].top_kernels[0].ms, 0.036, 0.0005);
}

TEST(CriticalPathEventWaits, StreamWaitEventLinksTheRecordedKernelToTheWaitingStreamsNextWork) {
  model::Profile p;
  LOAD_OR_SKIP(kMultiStream, p);
  const DependencyGraph g = build_dependency_graph(p, analyze_steps(p));
  // cudaEventRecord 1385 on stream 20 after the sgemm launched by 27; cudaStreamWaitEvent 1389
  // on stream 24, whose next work is the memset launched by 1411.
  const model::EventIndex source = event_of(p, "ampere_sgemm_128x64_nn", 27);
  const model::EventIndex dest = event_of(p, "Memset (Device)", 1411);
  ASSERT_NE(source, model::kNone);
  ASSERT_NE(dest, model::kNone);
  EXPECT_TRUE(has_edge(g, p.end_ps(source), p.start_ps(dest), [](const PathEdge&) { return true; }));
  // Nothing else leads from the sgemm's end to another stream.
  EXPECT_FALSE(has_edge(g, p.end_ps(source), p.start_ps(event_of(p, "Memset (Device)", 55)),
                        [](const PathEdge&) { return true; }));
}

TEST(CriticalPathEventWaits, MatmulWindowsAsInHta) {
  model::Profile p;
  LOAD_OR_SKIP(kMultiStream, p);
  const CriticalPath c = compute_critical_path_of_annotation(p, analyze_steps(p), "aten::matmul");
  ASSERT_EQ(c.steps.size(), 3u);
  EXPECT_NEAR(c.steps[0].path_ms, 0.561, 0.561 * 0.02);
  EXPECT_NEAR(c.steps[2].path_ms, 0.412, 0.412 * 0.02);
  EXPECT_GT(c.steps[1].path_ms, 0.287);  // up to the kernel's end
  for (size_t i : {0u, 2u}) {
    bool sgemm = false;
    for (const PathTime& k : c.steps[i].top_kernels) sgemm |= k.name == "ampere_sgemm_128x64_nn";
    EXPECT_TRUE(sgemm) << "instance " << i;
  }
}

}  // namespace
}  // namespace mlprof::analysis
