// A what-if replay that recomputes only the instants a change reaches (docs/ARCHITECTURE.md
// §5.9b): an instant none of whose dependencies moved and none of whose edges was scaled keeps
// its measured time, so a change whose effect is absorbed (a kernel shortened on a stream that
// then waits for its launches) costs what it touches, not the whole graph. It gives the same
// times as a full replay (longest_path.h).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "analysis/critical_path/dependency_graph.h"

namespace mlprof::analysis {

// The nodes each node's out-edges lead to, built once for a graph.
struct OutEdges {
  std::vector<uint32_t> first;  // node v's: to[first[v], first[v+1])
  UnfilledVector<uint32_t> to;  // sized without a zero-fill: out_edges() writes every slot
};
OutEdges out_edges(const DependencyGraph& g);

// Replays of one graph, reusing its buffers; one per thread (the graph, the measured times and
// the out-edges are shared and only read).
class PartialReplay {
 public:
  PartialReplay(const DependencyGraph& g, const UnfilledVector<int64_t>& measured_ps, const OutEdges& out);

  // The steps' mean length in ms with the weights of `scaled` (edge indices, ascending) times
  // `scale`.
  double mean_step_ms(const std::vector<uint32_t>& scaled, double scale);
  // The same summed over the reported steps (GraphStep::reported), in ps: windows' sums add up.
  double total_step_ps(const std::vector<uint32_t>& scaled, double scale);
  // total_step_ps of each change, made in the order given. Those that end up replaying every
  // node after some node (a change of many edges, or one that spreads down a thread) go two at
  // a time: one pass over the nodes makes both, each node's time waiting for the one before
  // it on its thread, and the two replays' chains of waits overlapping.
  using Change = std::pair<const std::vector<uint32_t>*, double>;
  std::vector<double> total_step_ps(const std::vector<Change>& changes);
  // Changes made in ascending order of this key cost least: those that follow their marks
  // first, then those that replay every node from their first by descending first node (two
  // made together then start near each other, and each finds the nodes below its start
  // measured still).
  uint64_t order_key(const std::vector<uint32_t>& scaled) const {
    if (scaled.empty() || !replays_to_end(scaled)) return 0;
    return 1 + g_.num_nodes() - g_.edges[scaled.front()].to;
  }

 private:
  // Above this share of the edges scaled (1 in kDenseShare), replay every node after the first.
  static constexpr size_t kDenseShare = 32;
  bool replays_to_end(const std::vector<uint32_t>& scaled) const {
    return scaled.size() * kDenseShare >= g_.edges.size();
  }
  // A marked replay that has moved at least half of this many nodes, or more, since its first
  // goes on replaying every node.
  static constexpr uint32_t kSpreadAfter = 4096;

  // One replay's times: the measured times, but for the nodes in `changed` and those from
  // `stale_from` on after a replay that ran on to the end (nodes nothing leads to keep their
  // measured times throughout). Two lanes make two changes in one pass; lane i's scaled edges
  // carry bit 1 << i in scaled_.
  struct Lane {
    std::vector<int64_t> time;
    uint32_t stale_from = 0;
    std::vector<uint32_t> changed;
  };
  // Where a change stands once its lane is ready for the pass to the end: its lane's times are
  // right below `start`.
  struct Started {
    size_t change = 0;
    uint32_t start = 0;
  };
  // Replays the change in lane `l` as far as it goes without a pass to the end: a change that
  // names no edge, or whose moves are absorbed, is done (its total in `total`, nothing
  // returned); any other is left ready for its pass, which starts where returned.
  std::optional<Started> begin(size_t index, const Change& change, size_t l, double* total);
  // Gives lane l the measured times back after its replay, which ran on to the end from `all_from`.
  void finish(size_t l, uint32_t all_from);
  // Clears lane l's marks of its scaled edges.
  void unmark(size_t l, const std::vector<uint32_t>& scaled);
  // Gives the nodes of lane l below `end` their measured times again (a replay left later ones stale).
  void measured_below(size_t l, uint32_t end);
  double total_step_ps_of(const int64_t* time) const;
  // Every node from `first` on in lane l, as replay() computes it.
  void replay_from(size_t l, uint32_t first, double scale);
  // Both lanes from `first` on in one pass.
  void replay_both_from(uint32_t first, double scale0, double scale1);
  // The nodes a scaled edge leads to, and on from each whose time moved, until the change has
  // spread: returns where the pass to the end must start then (the number of nodes when it
  // never spread).
  uint32_t replay_marked(size_t l, const std::vector<uint32_t>& scaled, double scale);
  void mark(uint32_t v) { dirty_[v >> 6] |= uint64_t(1) << (v & 63); }
  Lane& lane(size_t l);

  const DependencyGraph& g_;
  const UnfilledVector<int64_t>& measured_;
  const OutEdges& out_;
  Lane lanes_[2];                // the second made on first use
  std::vector<uint64_t> dirty_;  // one bit a node: a dependency moved or was scaled
  std::vector<uint8_t> scaled_;  // per edge, while replaying: a bit per lane
};

}  // namespace mlprof::analysis
