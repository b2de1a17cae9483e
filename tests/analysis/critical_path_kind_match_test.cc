// A kind or category what-if target reaches the edges of its kind (what_if.h): on a graph of
// six edges whose kinds are set by hand, each target gets the edges listed here, however many
// targets name the same kind, and the predictor counts them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/critical_path/dependency_graph.h"
#include "analysis/critical_path/what_if.h"

namespace mlprof::analysis {
namespace {

// Edges 0..5 into nodes 1..6, of kinds host, copies, host, device compute, copies, waiting.
DependencyGraph graph_of_kinds() {
  const PathKind kinds[] = {PathKind::kHost,          PathKind::kCopies, PathKind::kHost,
                            PathKind::kDeviceCompute, PathKind::kCopies, PathKind::kWaiting};
  DependencyGraph g;
  g.anchor_ps = {0, 1, 2, 3, 4, 5, 6};
  g.in_first = {0, 0, 1, 2, 3, 4, 5, 6};
  for (uint32_t k = 0; k < 6; ++k) {
    PathEdge e;
    e.to = k + 1;
    e.kind = kinds[k];
    g.edges.push_back(e);
    g.edge_from.push_back(k);
    g.edge_weight_ps.push_back(1);
  }
  return g;
}

TEST(WhatIfKindMatch, EachTargetOfAKindGetsItsEdgesThoughSeveralNameIt) {
  const model::Profile p;
  const DependencyGraph g = graph_of_kinds();
  // host_compute is a category read as host; output and device_to_device as copies.
  const std::vector<std::string> targets = {"host", "copies", "host_compute", "output", "device_to_device",
                                            "device_compute", "input"};
  const auto found = match_what_ifs(p, g, targets);
  ASSERT_EQ(found.size(), targets.size());
  for (const auto& f : found) ASSERT_TRUE(f.has_value());
  EXPECT_EQ(*found[0], (EdgeList{0, 2}));
  EXPECT_EQ(*found[1], (EdgeList{1, 4}));
  EXPECT_EQ(*found[2], (EdgeList{0, 2}));
  EXPECT_EQ(*found[3], (EdgeList{1, 4}));
  EXPECT_EQ(*found[4], (EdgeList{1, 4}));
  EXPECT_EQ(*found[5], (EdgeList{3}));
  EXPECT_TRUE(found[6]->empty());  // a kind the graph does not hold: matched, reaching nothing
}

TEST(WhatIfKindMatch, ThePredictorCountsAKindsEdges) {
  const model::Profile p;
  const DependencyGraph g = graph_of_kinds();
  WhatIfPredictor predict(p, g);
  EXPECT_EQ(predict.num_edges("host"), 2u);
  EXPECT_EQ(predict.num_edges("copies"), 2u);
  EXPECT_EQ(predict.num_edges("device_compute"), 1u);
  EXPECT_EQ(predict.num_edges("collectives"), 0u);
  EXPECT_EQ(predict.num_edges("idle"), 0u);  // the waiting edge is no idle time
}

}  // namespace
}  // namespace mlprof::analysis
