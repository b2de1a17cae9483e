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

}  // namespace mlprof::analysis
