#include "analysis/critical_path/longest_path.h"

#include <algorithm>
#include <cmath>

namespace mlprof::analysis {

namespace {

// The replay with or without scaled edges and bindings: each its own loop, the best in-edge
// kept by selects (which of a node's edges sets its time is not predictable).
template <bool kScaled, bool kBinding>
void replay_nodes(const DependencyGraph& g, const uint8_t* scaled, double scale, int64_t* time, uint32_t* binding) {
  const uint32_t n = uint32_t(g.num_nodes());
  const uint32_t* from = g.edge_from.data();
  const int64_t* weight = g.edge_weight_ps.data();
  const uint32_t* in_first = g.in_first.data();
  auto weight_of = [&](uint32_t k) {
    if constexpr (kScaled) return scaled[k] ? int64_t(std::llround(double(weight[k]) * scale)) : weight[k];
    else return weight[k];
  };
  for (uint32_t v = 0; v < n; ++v) {
    const uint32_t first = in_first[v], end = in_first[v + 1];
    if (first == end) {  // a node nothing leads to (a thread's first instant) stays where it was measured
      time[v] = g.anchor_ps[v];
      if constexpr (kBinding) binding[v] = UINT32_MAX;
      continue;
    }
    int64_t t = time[from[first]] + weight_of(first);
    uint32_t best = first;
    for (uint32_t k = first + 1; k < end; ++k) {
      const int64_t c = time[from[k]] + weight_of(k);
      best = c > t ? k : best;  // the first of equal ones
      t = std::max(t, c);
    }
    time[v] = t;
    if constexpr (kBinding) binding[v] = best;
  }
}

}  // namespace

Replay replay(const DependencyGraph& g, const std::vector<uint8_t>* matched, double scale, bool keep_binding) {
  Replay r;
  r.time_ps.resize(g.num_nodes());
  if (keep_binding) r.binding.resize(g.num_nodes());
  int64_t* time = r.time_ps.data();
  uint32_t* binding = r.binding.data();
  if (matched) {
    if (keep_binding) replay_nodes<true, true>(g, matched->data(), scale, time, binding);
    else replay_nodes<true, false>(g, matched->data(), scale, time, binding);
  } else {
    if (keep_binding) replay_nodes<false, true>(g, nullptr, scale, time, binding);
    else replay_nodes<false, false>(g, nullptr, scale, time, binding);
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
  critical_path(g, r, step, path);
  return path;
}

void critical_path(const DependencyGraph& g, const Replay& r, const GraphStep& step, std::vector<PathPiece>& path) {
  path.clear();
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
}

}  // namespace mlprof::analysis
