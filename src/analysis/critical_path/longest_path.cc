#include "analysis/critical_path/longest_path.h"

#include <algorithm>
#include <cmath>

namespace mlprof::analysis {

Replay replay(const DependencyGraph& g, const std::vector<uint8_t>* matched, double scale, bool keep_binding) {
  Replay r;
  r.time_ps.resize(g.num_nodes());
  if (keep_binding) r.binding.assign(g.num_nodes(), UINT32_MAX);
  const size_t n = g.num_nodes();
  const uint32_t* from = g.edge_from.data();
  const int64_t* weight = g.edge_weight_ps.data();
  const uint8_t* scaled = matched ? matched->data() : nullptr;
  int64_t* time = r.time_ps.data();
  for (uint32_t v = 0; v < n; ++v) {
    int64_t t = INT64_MIN;
    uint32_t best = UINT32_MAX;
    for (uint32_t k = g.in_first[v]; k < g.in_first[v + 1]; ++k) {
      int64_t w = weight[k];
      if (scaled && scaled[k]) w = int64_t(std::llround(double(w) * scale));
      if (time[from[k]] + w > t) {
        t = time[from[k]] + w;
        best = k;
      }
    }
    // A node nothing leads to (a thread's first instant) stays where it was measured.
    time[v] = best == UINT32_MAX ? g.anchor_ps[v] : t;
    if (keep_binding) r.binding[v] = best;
  }
  return r;
}

int64_t replayed_begin_ps(const DependencyGraph& g, const int64_t* time_ps, const GraphStep& step) {
  int64_t begin = INT64_MIN;
  if (step.begin_node != kNoNode) begin = time_ps[step.begin_node];
  if (step.previous >= 0) begin = std::max(begin, time_ps[g.steps[size_t(step.previous)].sink]);
  // A first step with no instant of its own at its start keeps its measured start, but never
  // after its replayed end (a change that moves all work earlier leaves no step of negative length).
  return std::min(begin == INT64_MIN ? step.begin_ps : begin, time_ps[step.sink]);
}

std::vector<PathPiece> critical_path(const DependencyGraph& g, const Replay& r, const GraphStep& step) {
  std::vector<PathPiece> path;
  const int64_t begin = replayed_begin_ps(g, r, step);
  uint32_t v = step.sink;
  while (r.time_ps[v] > begin) {
    const uint32_t ei = r.binding[v];
    if (ei == UINT32_MAX) {  // a first instant inside the step: the time before it is unexplained
      path.push_back({UINT32_MAX, r.time_ps[v] - begin});
      break;
    }
    const uint32_t u = g.edge_from[ei];
    path.push_back({ei, r.time_ps[v] - std::max(r.time_ps[u], begin)});
    v = u;
  }
  return path;
}

}  // namespace mlprof::analysis
