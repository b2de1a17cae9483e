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

}  // namespace mlprof::analysis
