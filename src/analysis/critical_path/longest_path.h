// The longest path through the dependency graph (dependency_graph.h): each node happens when
// the last of its dependencies allows, so replaying the graph gives every instant's time, and
// following, back from a step's end, the dependency that set each time gives the step's
// critical path.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/critical_path/dependency_graph.h"
#include "analysis/critical_path/unfilled_vector.h"

namespace mlprof::analysis {

struct Replay {
  UnfilledVector<int64_t> time_ps;   // per node
  UnfilledVector<uint32_t> binding;  // per node: the in-edge that set its time (UINT32_MAX: none); when asked
};

// The nodes' times with the edges' weights, those with matched[edge] scaled by `scale`
// (matched null: none).
Replay replay(const DependencyGraph& g, const std::vector<uint8_t>* matched, double scale, bool keep_binding);

// A step's begin and end in a replay: it begins when its root begins or the previous step ends,
// whichever is later.
int64_t replayed_begin_ps(const DependencyGraph& g, const int64_t* time_ps, const GraphStep& step);
inline int64_t replayed_begin_ps(const DependencyGraph& g, const Replay& r, const GraphStep& step) {
  return replayed_begin_ps(g, r.time_ps.data(), step);
}
inline int64_t replayed_duration_ps(const DependencyGraph& g, const Replay& r, const GraphStep& step) {
  return r.time_ps[step.sink] - replayed_begin_ps(g, r, step);
}

// One piece of a critical path: an edge (UINT32_MAX for time before the path's first node that
// nothing explains) and the time of it inside the step.
struct PathPiece {
  uint32_t edge = UINT32_MAX;
  int64_t ps = 0;
};
// The step's critical path, from its end back to its begin (a replay with bindings).
std::vector<PathPiece> critical_path(const DependencyGraph& g, const Replay& r, const GraphStep& step);
// The same into `path` (emptied first): a caller reading many steps' paths keeps its buffer.
void critical_path(const DependencyGraph& g, const Replay& r, const GraphStep& step, std::vector<PathPiece>& path);

}  // namespace mlprof::analysis
