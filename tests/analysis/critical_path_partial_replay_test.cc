// The partial replay of a what-if (partial_replay.h) against the whole replay (longest_path.h):
// the same step times, on a small graph worked out by hand and on real traces for every default
// target.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <tuple>
#include <string>

#include "analysis/critical_path/critical_path.h"
#include "analysis/critical_path/dependency_graph.h"
#include "analysis/critical_path/longest_path.h"
#include "analysis/critical_path/partial_replay.h"
#include "analysis/critical_path/step_reach.h"
#include "analysis/critical_path/what_if.h"
#include "analysis/step_breakdown.h"
#include "model/load_profile.h"

namespace mlprof::analysis {
namespace {

// A graph given by its edges (from < to), grouped by target as build_dependency_graph leaves them.
DependencyGraph graph_of(std::vector<int64_t> anchors, std::vector<std::tuple<uint32_t, uint32_t, int64_t>> edges) {
  DependencyGraph g;
  g.anchor_ps.assign(anchors.begin(), anchors.end());
  std::sort(edges.begin(), edges.end(), [](const auto& a, const auto& b) { return std::get<1>(a) < std::get<1>(b); });
  g.in_first.assign(g.num_nodes() + 1, 0);
  for (const auto& [from, to, w] : edges) {
    PathEdge e;
    e.to = to;
    g.edges.push_back(e);
    g.edge_from.push_back(from);
    g.edge_weight_ps.push_back(w);
    ++g.in_first[to + 1];
  }
  for (size_t v = 0; v < g.num_nodes(); ++v) g.in_first[v + 1] += g.in_first[v];
  return g;
}

// Host thread 0 -> 1 -> 2 -> 5 (sink), launching at 1 a kernel 3 -> 4 that the host waits for at 5.
//   host: 0 --10--> 1 --10--> 2 --0--> 5      kernel: 1 --5--> 3 --40--> 4 --0--> 5
// Measured: the kernel ends at 55, the step at 55. Halving the kernel: it ends at 35, the step
// then ends at max(20, 35) = 35; halving the host's first 10 instead: the kernel starts at 10,
// ends at 55 - 5 = 50.
TEST(PartialReplay, GivesTheWholeReplaysTimesOnAGraphWorkedByHand) {
  DependencyGraph g = graph_of({0, 10, 20, 15, 55, 55},
                               {{0, 1, 10}, {1, 2, 10}, {2, 5, 0}, {1, 3, 5}, {3, 4, 40}, {4, 5, 0}});
  g.steps.push_back({0, 1, 0, 55, 0, 5, -1});
  const UnfilledVector<int64_t> measured = replay(g, nullptr, 1, false).time_ps;
  ASSERT_EQ(measured[5], 55);
  const OutEdges out = out_edges(g);
  PartialReplay partial(g, measured, out);
  auto edge_index = [&](uint32_t from, uint32_t to) {
    for (uint32_t k = 0; k < g.edges.size(); ++k)
      if (g.edge_from[k] == from && g.edges[k].to == to) return k;
    return UINT32_MAX;
  };
  EXPECT_DOUBLE_EQ(partial.mean_step_ms({edge_index(3, 4)}, 0.5), 35 / 1e9);
  EXPECT_DOUBLE_EQ(partial.mean_step_ms({edge_index(0, 1)}, 0.5), 50 / 1e9);
  EXPECT_DOUBLE_EQ(partial.mean_step_ms({edge_index(1, 2)}, 0), 55 / 1e9);  // absorbed: the kernel still binds
  EXPECT_DOUBLE_EQ(partial.mean_step_ms({}, 0), 55 / 1e9);
  // The buffers are restored between replays: the first again gives the same.
  EXPECT_DOUBLE_EQ(partial.mean_step_ms({edge_index(3, 4)}, 0.5), 35 / 1e9);
}

// In the graph above the kernel's chain sets the step's end; the host's stretch after the
// launch does not: shortening it cannot move the step (the whole replay agrees), while
// shortening the kernel, the stretch before the launch, or lengthening anything may.
TEST(StepReach, OnlyEdgesSettingAStepsTimeMayMoveIt) {
  DependencyGraph g = graph_of({0, 10, 20, 15, 55, 55},
                               {{0, 1, 10}, {1, 2, 10}, {2, 5, 0}, {1, 3, 5}, {3, 4, 40}, {4, 5, 0}});
  g.steps.push_back({0, 1, 0, 55, 0, 5, -1});
  auto edge_index = [&](uint32_t from, uint32_t to) {
    for (uint32_t k = 0; k < g.edges.size(); ++k)
      if (g.edge_from[k] == from && g.edges[k].to == to) return k;
    return UINT32_MAX;
  };
  const Replay r = replay(g, nullptr, 1, true);
  const std::vector<uint8_t> setting = nodes_setting_steps(g, r.binding);
  const EdgeList host_after = {edge_index(1, 2), edge_index(2, 5)};
  EXPECT_FALSE(may_move_steps(g, setting, r.binding, host_after, 0));
  EXPECT_FALSE(may_move_steps(g, setting, r.binding, host_after, 0.5));
  EXPECT_EQ(predicted_step_ms(g, host_after, 0), 55 / 1e9);
  EXPECT_TRUE(may_move_steps(g, setting, r.binding, {edge_index(3, 4)}, 0.5));
  EXPECT_TRUE(may_move_steps(g, setting, r.binding, {edge_index(0, 1)}, 0.5));
  EXPECT_TRUE(may_move_steps(g, setting, r.binding, host_after, 2));
}

constexpr uint32_t kNodes = 10000;

// One thread of kNodes instants 10 ps apart, edge k from instant k to k + 1, and one step over all.
DependencyGraph one_thread_graph() {
  std::vector<int64_t> anchors;
  std::vector<std::tuple<uint32_t, uint32_t, int64_t>> edges;
  for (uint32_t v = 0; v < kNodes; ++v) {
    anchors.push_back(10 * int64_t(v));
    if (v > 0) edges.emplace_back(v - 1, v, 10);
  }
  DependencyGraph g = graph_of(anchors, edges);
  g.steps.push_back({0, 1, 0, 10 * int64_t(kNodes - 1), 0, kNodes - 1, -1});
  return g;
}

// One thread of 10000 instants 10 ps apart: halving its first stretch moves every instant after
// it (the replay goes on over all of them once the change has spread), the step ends 5 ps
// earlier; removing its last stretch, 10 ps earlier; and the buffers are restored between.
TEST(PartialReplay, AChangeThatSpreadsDownAThreadMovesEveryInstantAfterIt) {
  const DependencyGraph g = one_thread_graph();
  const int64_t end = 10 * int64_t(kNodes - 1);
  const UnfilledVector<int64_t> measured = replay(g, nullptr, 1, false).time_ps;
  const OutEdges out = out_edges(g);
  PartialReplay partial(g, measured, out);
  EXPECT_DOUBLE_EQ(partial.mean_step_ms({0}, 0.5), double(end - 5) / 1e9);  // edge 0: 0 -> 1
  EXPECT_DOUBLE_EQ(partial.mean_step_ms({kNodes - 2}, 0), double(end - 10) / 1e9);
  EXPECT_DOUBLE_EQ(partial.mean_step_ms({0}, 0.5), double(end - 5) / 1e9);
  EXPECT_DOUBLE_EQ(partial.mean_step_ms({}, 0), double(end) / 1e9);
}

// Changes made together (those that replay to the end two in one pass) give what each gives
// alone, worked out by hand on the thread above: halving its first stretch or its 101st moves
// the end 5 ps earlier (both spread down the thread), removing its last stretch 10 ps (absorbed
// at once), halving every stretch halves the step, and no change leaves it.
TEST(PartialReplay, ChangesMadeTogetherGiveWhatEachGivesAlone) {
  const DependencyGraph g = one_thread_graph();
  const int64_t end = 10 * int64_t(kNodes - 1);
  const UnfilledVector<int64_t> measured = replay(g, nullptr, 1, false).time_ps;
  const OutEdges out = out_edges(g);
  PartialReplay partial(g, measured, out);
  const std::vector<uint32_t> first = {0}, later = {100}, last = {kNodes - 2}, none;
  std::vector<uint32_t> all(kNodes - 1);
  for (uint32_t k = 0; k < all.size(); ++k) all[k] = k;
  const std::vector<double> total =
      partial.total_step_ps({{&first, 0.5}, {&last, 0}, {&all, 0.5}, {&later, 0.5}, {&none, 0}, {&first, 0.5}});
  ASSERT_EQ(total.size(), 6u);
  EXPECT_EQ(total[0], double(end - 5));
  EXPECT_EQ(total[1], double(end - 10));
  EXPECT_EQ(total[2], double(end / 2));
  EXPECT_EQ(total[3], double(end - 5));
  EXPECT_EQ(total[4], double(end));
  EXPECT_EQ(total[5], double(end - 5));
  // The buffers are restored after: each alone gives the same again.
  EXPECT_EQ(partial.total_step_ps(later, 0.5), double(end - 5));
  EXPECT_EQ(partial.total_step_ps(all, 0.5), double(end / 2));
  EXPECT_EQ(partial.total_step_ps(none, 0), double(end));
}

class PartialReplayOnTraces : public ::testing::TestWithParam<std::string> {};

TEST_P(PartialReplayOnTraces, EqualsTheWholeReplayForEveryDefaultTarget) {
  const std::string path = std::string(MLPROF_TESTDATA) + "/" + GetParam();
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path << " (../shared/testdata is absent)";
  model::Profile p;
  model::LoadError error;
  ASSERT_TRUE(model::load_profile({path, "", ""}, &p, &error)) << error.path << ": " << error.problem;
  const StepAnalysis steps = analyze_steps(p);
  const DependencyGraph g = build_dependency_graph(p, steps);
  ASSERT_FALSE(g.steps.empty());
  const CriticalPath c = compute_critical_path(p, steps);
  ASSERT_FALSE(c.what_if.empty());
  const UnfilledVector<int64_t> measured = replay(g, nullptr, 1, false).time_ps;
  const OutEdges out = out_edges(g);
  PartialReplay partial(g, measured, out);
  std::vector<EdgeList> lists;
  std::vector<double> wholes;
  for (const WhatIfPrediction& w : c.what_if) {
    const auto matched = match_what_if(p, g, w.target);
    ASSERT_TRUE(matched.has_value()) << w.target;
    const double whole = predicted_step_ms(g, *matched, w.scale);
    EXPECT_EQ(partial.mean_step_ms(*matched, w.scale), whole) << w.target << " x" << w.scale;
    EXPECT_EQ(w.step_ms, whole) << w.target << " x" << w.scale;
    lists.push_back(*matched);
    wholes.push_back(whole);
  }
  // All made together, in the order given.
  std::vector<PartialReplay::Change> changes;
  for (size_t i = 0; i < lists.size(); ++i) changes.emplace_back(&lists[i], c.what_if[i].scale);
  const std::vector<double> together = partial.total_step_ps(changes);
  const double reported = double(g.num_reported_steps());
  for (size_t i = 0; i < lists.size(); ++i)
    EXPECT_EQ(together[i] / reported / 1e9, wholes[i]) << c.what_if[i].target << " x" << c.what_if[i].scale;
}

INSTANTIATE_TEST_SUITE_P(Traces, PartialReplayOnTraces,
                         ::testing::Values("pytorch/df_index_resolver__df_index_resolver.json.gz",
                                           "pytorch/ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
                                           "tensorflow/gpu_multi_worker.xplane.pb"));

}  // namespace
}  // namespace mlprof::analysis
