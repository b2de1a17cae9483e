#include "analysis/critical_path/step_reach.h"

#include <algorithm>

namespace mlprof::analysis {

StepReach::StepReach(const DependencyGraph& g) : g_(g), leading_(g.num_nodes(), 0), done_(uint32_t(g.num_nodes())) {
  for (const GraphStep& s : g.steps)
    if (s.sink != kNoNode) leading_[s.sink] = 1;
}

void StepReach::find_down_to(uint32_t v) {
  // Nodes are numbered in dependency order and edges grouped by target: a node's mark is final
  // once every node after it has passed its mark on to its sources.
  const uint32_t* in_first = g_.in_first.data();
  const uint32_t* from = g_.edge_from.data();
  uint8_t* leading = leading_.data();
  for (uint32_t w = done_; w-- > v;)
    if (leading[w])
      for (uint32_t e = in_first[w]; e < in_first[w + 1]; ++e) leading[from[e]] = 1;
  done_ = std::min(done_, v);
}

bool StepReach::reaches(const EdgeList& matched) {
  // Edges are grouped by target: the last edges' targets are the highest, read first.
  for (auto it = matched.rbegin(); it != matched.rend(); ++it) {
    const uint32_t v = g_.edges[*it].to;
    find_down_to(v);
    if (leading_[v]) return true;
  }
  return false;
}

std::vector<uint8_t> nodes_setting_steps(const DependencyGraph& g, const UnfilledVector<uint32_t>& binding) {
  std::vector<uint8_t> sets(g.num_nodes(), 0);
  // Back from each step's end and begin along the binding edges, each walk stopping where it
  // meets one made before: the nodes passed are those marked, and no other is read (a pass over
  // every node read them all, most of them on the steps' paths anyway).
  const uint32_t* from = g.edge_from.data();
  auto walk = [&](uint32_t v) {
    while (!sets[v]) {
      sets[v] = 1;
      const uint32_t b = binding[v];
      if (b == UINT32_MAX) return;
      v = from[b];
    }
  };
  for (const GraphStep& s : g.steps) {
    if (s.sink != kNoNode) walk(s.sink);
    if (s.begin_node != kNoNode) walk(s.begin_node);
  }
  return sets;
}

bool may_move_steps(const DependencyGraph& g, const std::vector<uint8_t>& setting, const UnfilledVector<uint32_t>& binding,
                    const EdgeList& scaled, double scale) {
  if (!(scale >= 0 && scale <= 1)) return true;  // a longer edge may set a time
  for (uint32_t e : scaled) {
    const uint32_t v = g.edges[e].to;
    if ((setting[v] && binding[v] == e) || g.edge_weight_ps[e] < 0) return true;
  }
  return false;
}

}  // namespace mlprof::analysis
