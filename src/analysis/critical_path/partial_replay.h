// A what-if replay that recomputes only the instants a change reaches (docs/ARCHITECTURE.md
// §5.9b): an instant none of whose dependencies moved and none of whose edges was scaled keeps
// its measured time, so a change whose effect is absorbed (a kernel shortened on a stream that
// then waits for its launches) costs what it touches, not the whole graph. It gives the same
// times as a full replay (longest_path.h).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/critical_path/dependency_graph.h"

namespace mlprof::analysis {

// The nodes each node's out-edges lead to, built once for a graph.
struct OutEdges {
  std::vector<uint32_t> first;  // node v's: to[first[v], first[v+1])
  std::vector<uint32_t> to;
};
OutEdges out_edges(const DependencyGraph& g);

// Replays of one graph, reusing its buffers; one per thread (the graph, the measured times and
// the out-edges are shared and only read).
class PartialReplay {
 public:
  PartialReplay(const DependencyGraph& g, const std::vector<int64_t>& measured_ps, const OutEdges& out);

  // The steps' mean length in ms with the weights of `scaled` (edge indices, ascending) times
  // `scale`.
  double mean_step_ms(const std::vector<uint32_t>& scaled, double scale);
  // The same summed over the reported steps (GraphStep::reported), in ps: windows' sums add up.
  double total_step_ps(const std::vector<uint32_t>& scaled, double scale);
  // Changes made in ascending order of this key cost least: those that follow their marks
  // first, then those that replay every node from their first by descending first node (each
  // then finds the nodes below its start measured still).
  uint64_t order_key(const std::vector<uint32_t>& scaled) const {
    if (scaled.empty() || !replays_to_end(scaled)) return 0;
    return 1 + g_.num_nodes() - g_.edges[scaled.front()].to;
  }
  // Whether total_step_ps_pair takes the change (it replays every node from its first).
  bool pairs(const std::vector<uint32_t>& scaled) const { return !scaled.empty() && replays_to_end(scaled); }
  // total_step_ps of two such changes, made in one pass: each node's time waits for the one
  // before it on its thread, and the two replays' chains of waits overlap.
  std::pair<double, double> total_step_ps_pair(const std::vector<uint32_t>& a, double scale_a,
                                               const std::vector<uint32_t>& b, double scale_b);

 private:
  // Above this share of the edges scaled (1 in kDenseShare), replay every node after the first.
  static constexpr size_t kDenseShare = 20;
  bool replays_to_end(const std::vector<uint32_t>& scaled) const {
    return scaled.size() * kDenseShare >= g_.edges.size();
  }
  double total_step_ps_now() const { return total_step_ps_of(time_.data()); }  // with time_ as it is
  double total_step_ps_of(const int64_t* time) const;
  void replay_from(uint32_t first, double scale);
  uint32_t replay_marked(const std::vector<uint32_t>& scaled, double scale);
  // A marked replay that has moved at least half of this many nodes, or more, since its first
  // goes on replaying every node.
  static constexpr uint32_t kSpreadAfter = 4096;
  void mark(uint32_t v) { dirty_[v >> 6] |= uint64_t(1) << (v & 63); }

  const DependencyGraph& g_;
  const std::vector<int64_t>& measured_;
  const OutEdges& out_;
  // Gives the nodes below `end` their measured times again (a replay left later ones stale).
  void measured_below(uint32_t end);

  std::vector<int64_t> time_;     // the measured times, but for the nodes in changed_ while replaying
  // and those from stale_from_ on after a replay that ran on to the end (nodes nothing leads to
  // keep their measured times throughout)
  uint32_t stale_from_;
  std::vector<int64_t> second_;  // the second change's times in a pair, as time_ (made on first use)
  uint32_t second_stale_from_ = 0;
  std::vector<uint64_t> dirty_;   // one bit a node: a dependency moved or was scaled
  std::vector<uint8_t> scaled_;   // per edge, while replaying
  std::vector<uint32_t> changed_;
};

}  // namespace mlprof::analysis
