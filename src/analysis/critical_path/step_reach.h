// Whether a what-if's change can reach the steps at all (docs/ARCHITECTURE.md §5.9b): work from
// which no dependency the trace shows leads to a step's end (a loader thread not linked to the
// steps with `_p`/`_c`, a thread the program does not trace) gains nothing in every replay, and
// the prediction says why rather than "not on the critical path".
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/critical_path/dependency_graph.h"
#include "analysis/critical_path/unfilled_vector.h"
#include "analysis/critical_path/what_if.h"

namespace mlprof::analysis {

// Per node: whether some path of the graph's edges leads from it to a step's end, found in one
// pass backward from the last node, only as far down as the edges asked about need: a change
// whose last edge leads to a step (most do, near the graph's end) reads few nodes.
class StepReach {
 public:
  explicit StepReach(const DependencyGraph& g);
  // Whether any of the `matched` edges (ascending) leads to a step's end.
  bool reaches(const EdgeList& matched);

 private:
  // Makes leading_ final for the nodes from v on.
  void find_down_to(uint32_t v);

  const DependencyGraph& g_;
  std::vector<uint8_t> leading_;  // per node; final from done_ on
  uint32_t done_;
};

// Per node: whether a step's end or begin takes its time, in the measured replay whose binding
// edges are `binding` (longest_path.h), from it through those edges (walked back from each).
std::vector<uint8_t> nodes_setting_steps(const DependencyGraph& g, const UnfilledVector<uint32_t>& binding);

// Whether scaling `scaled` by `scale` may move a step, given the pass above. Shortening only
// edges that set no such time cannot: each of those times keeps the path that set it, and no
// other path grows. So the change's steps are the measured ones, with no replay.
bool may_move_steps(const DependencyGraph& g, const std::vector<uint8_t>& setting, const UnfilledVector<uint32_t>& binding,
                    const EdgeList& scaled, double scale);

}  // namespace mlprof::analysis
