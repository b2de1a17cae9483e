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
  const uint32_t n = uint32_t(g.num_nodes());
  std::vector<uint8_t> sets(n + 1, 0);  // and a spare slot
  for (const GraphStep& s : g.steps) {
    if (s.sink != kNoNode) sets[s.sink] = 1;
    if (s.begin_node != kNoNode) sets[s.begin_node] = 1;
  }
  if (g.edges.empty()) {
    sets.pop_back();
    return sets;
  }
  // Without branches (whether a node sets a step's time is not predictable), and the mark of
  // the node just below kept in a register: most come from it, and reading back what was just
  // stored would make each node wait for the one before.
  const uint32_t* from = g.edge_from.data();
  uint8_t carry = 0;
  for (uint32_t v = n; v-- > 0;) {
    const uint32_t b = binding[v];
    const uint32_t u = from[b != UINT32_MAX ? b : 0];
    const uint8_t mark = sets[v] | carry;
    const uint8_t on = mark & uint8_t(b != UINT32_MAX);
    const bool below = u + 1 == v;
    carry = on & uint8_t(below);
    sets[v] = mark;
    sets[below ? n : u] |= on;
  }
  sets.pop_back();
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
