#include "analysis/critical_path/step_reach.h"

namespace mlprof::analysis {

std::vector<uint8_t> nodes_leading_to_steps(const DependencyGraph& g) {
  std::vector<uint8_t> leading(g.num_nodes(), 0);
  for (const GraphStep& s : g.steps)
    if (s.sink != kNoNode) leading[s.sink] = 1;
  // Nodes are numbered in dependency order and edges grouped by target: one pass backward.
  for (uint32_t v = uint32_t(g.num_nodes()); v-- > 0;)
    if (leading[v])
      for (uint32_t e = g.in_first[v]; e < g.in_first[v + 1]; ++e)
        leading[g.edge_from[e]] = 1;
  return leading;
}

bool reaches_a_step(const DependencyGraph& g, const std::vector<uint8_t>& leading, const EdgeList& matched) {
  for (uint32_t e : matched)
    if (leading[g.edges[e].to]) return true;
  return false;
}

std::vector<uint8_t> nodes_setting_steps(const DependencyGraph& g, const std::vector<uint32_t>& binding) {
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

bool may_move_steps(const DependencyGraph& g, const std::vector<uint8_t>& setting, const std::vector<uint32_t>& binding,
                    const EdgeList& scaled, double scale) {
  if (!(scale >= 0 && scale <= 1)) return true;  // a longer edge may set a time
  for (uint32_t e : scaled) {
    const uint32_t v = g.edges[e].to;
    if ((setting[v] && binding[v] == e) || g.edge_weight_ps[e] < 0) return true;
  }
  return false;
}

}  // namespace mlprof::analysis
