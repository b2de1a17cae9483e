// Whether a what-if's change can reach the steps at all (docs/ARCHITECTURE.md §5.9b): work from
// which no dependency the trace shows leads to a step's end (a loader thread not linked to the
// steps with `_p`/`_c`, a thread the program does not trace) gains nothing in every replay, and
// the prediction says why rather than "not on the critical path".
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/critical_path/dependency_graph.h"
#include "analysis/critical_path/what_if.h"

namespace mlprof::analysis {

// Per node: whether some path of the graph's edges leads from it to a step's end (one pass).
std::vector<uint8_t> nodes_leading_to_steps(const DependencyGraph& g);

// Whether any of the `matched` edges leads to a step's end, given the pass above.
bool reaches_a_step(const DependencyGraph& g, const std::vector<uint8_t>& leading, const EdgeList& matched);

// Per node: whether a step's end or begin takes its time, in the measured replay whose binding
// edges are `binding` (longest_path.h), from it through those edges (walked back from each).
std::vector<uint8_t> nodes_setting_steps(const DependencyGraph& g, const std::vector<uint32_t>& binding);

// Whether scaling `scaled` by `scale` may move a step, given the pass above. Shortening only
// edges that set no such time cannot: each of those times keeps the path that set it, and no
// other path grows. So the change's steps are the measured ones, with no replay.
bool may_move_steps(const DependencyGraph& g, const std::vector<uint8_t>& setting, const std::vector<uint32_t>& binding,
                    const EdgeList& scaled, double scale);

}  // namespace mlprof::analysis
