#include "analysis/critical_path/partial_replay.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>

#include "analysis/critical_path/longest_path.h"

namespace mlprof::analysis {
namespace {

// llround(w * scale) for a weight w >= 0, without the library call for the scales asked most.
inline int64_t scaled_weight(int64_t w, double scale) {
  if (scale == 0) return 0;
  if (scale == 0.5) return (w + 1) >> 1;  // halves round away from zero, as llround does
  return int64_t(std::llround(double(w) * scale));
}

}  // namespace

OutEdges out_edges(const DependencyGraph& g) {
  OutEdges out;
  const size_t n = g.num_nodes();
  out.first.assign(n + 1, 0);
  for (uint32_t from : g.edge_from) ++out.first[from + 1];
  for (size_t v = 0; v < n; ++v) out.first[v + 1] += out.first[v];
  out.to.resize(g.edge_from.size());
  std::vector<uint32_t> fill(out.first.begin(), out.first.end() - 1);
  for (uint32_t v = 0; v < n; ++v)  // edges are grouped by target
    for (uint32_t k = g.in_first[v]; k < g.in_first[v + 1]; ++k) out.to[fill[g.edge_from[k]]++] = v;
  return out;
}

PartialReplay::PartialReplay(const DependencyGraph& g, const std::vector<int64_t>& measured_ps, const OutEdges& out)
    : g_(g),
      measured_(measured_ps),
      out_(out),
      time_(measured_ps),
      stale_from_(uint32_t(g.num_nodes())),
      dirty_((g.num_nodes() + 63) / 64, 0),
      scaled_(g.edges.size(), 0) {}

double PartialReplay::mean_step_ms(const std::vector<uint32_t>& scaled, double scale) {
  const size_t n = g_.num_reported_steps();
  return n == 0 ? 0 : total_step_ps(scaled, scale) / double(n) / 1e9;
}

double PartialReplay::total_step_ps(const std::vector<uint32_t>& scaled, double scale) {
  if (g_.steps.empty()) return 0;
  const uint32_t n = uint32_t(g_.num_nodes());
  if (scaled.empty()) {
    measured_below(n);
    return total_step_ps_now();
  }
  for (uint32_t k : scaled) scaled_[k] = 1;
  const uint32_t first = g_.edges[scaled.front()].to;  // edges are grouped by target, and listed in order
  // A change of many edges moves most instants: replaying all from the first is cheaper than
  // following the marks. That replay writes every node it passes, so only those before it need
  // their measured times back.
  const bool dense = replays_to_end(scaled);
  measured_below(dense ? first : n);
  // From here on every node was replayed (a marked replay whose change spread goes on so).
  const uint32_t all_from = dense ? first : replay_marked(scaled, scale);
  if (dense) replay_from(first, scale);
  const double ps = total_step_ps_now();
  for (uint32_t v : changed_) time_[v] = measured_[v];
  stale_from_ = all_from;
  changed_.clear();
  for (uint32_t k : scaled) scaled_[k] = 0;
  return ps;
}

void PartialReplay::measured_below(uint32_t end) {
  if (stale_from_ >= end) return;
  std::copy(measured_.begin() + stale_from_, measured_.begin() + end, time_.begin() + stale_from_);
  stale_from_ = end;
}

double PartialReplay::total_step_ps_of(const int64_t* time) const {
  double total = 0;
  for (const GraphStep& s : g_.steps)
    if (s.reported) total += double(time[s.sink] - replayed_begin_ps(g_, time, s));
  return total;
}

std::pair<double, double> PartialReplay::total_step_ps_pair(const std::vector<uint32_t>& a, double scale_a,
                                                            const std::vector<uint32_t>& b, double scale_b) {
  if (g_.steps.empty()) return {0, 0};
  const uint32_t n = uint32_t(g_.num_nodes());
  if (second_.empty()) second_ = measured_, second_stale_from_ = n;
  // Both replayed from the earlier first node: before its own first, a change's replay gives
  // the measured times back (they replay to themselves).
  const uint32_t first = std::min(g_.edges[a.front()].to, g_.edges[b.front()].to);
  measured_below(first);
  if (second_stale_from_ < first)
    std::copy(measured_.begin() + second_stale_from_, measured_.begin() + first, second_.begin() + second_stale_from_);
  for (uint32_t k : a) scaled_[k] |= 1;
  for (uint32_t k : b) scaled_[k] |= 2;
  const uint32_t* from = g_.edge_from.data();
  const int64_t* weight = g_.edge_weight_ps.data();
  const uint8_t* is_scaled = scaled_.data();
  const uint32_t* in_first = g_.in_first.data();
  int64_t* time_a = time_.data();
  int64_t* time_b = second_.data();
  for (uint32_t v = first; v < n; ++v) {
    if (in_first[v] == in_first[v + 1]) continue;  // a node nothing leads to keeps its time
    int64_t ta = INT64_MIN, tb = INT64_MIN;
    for (uint32_t k = in_first[v]; k < in_first[v + 1]; ++k) {
      const int64_t w = weight[k];
      const int64_t wa = is_scaled[k] & 1 ? scaled_weight(w, scale_a) : w;
      const int64_t wb = is_scaled[k] & 2 ? scaled_weight(w, scale_b) : w;
      ta = std::max(ta, time_a[from[k]] + wa);
      tb = std::max(tb, time_b[from[k]] + wb);
    }
    time_a[v] = ta;
    time_b[v] = tb;
  }
  stale_from_ = second_stale_from_ = first;
  for (uint32_t k : a) scaled_[k] = 0;
  for (uint32_t k : b) scaled_[k] = 0;
  return {total_step_ps_of(time_a), total_step_ps_of(time_b)};
}

// Every node from `first` on, as replay() computes it.
void PartialReplay::replay_from(uint32_t first, double scale) {
  const uint32_t* from = g_.edge_from.data();
  const int64_t* weight = g_.edge_weight_ps.data();
  const uint8_t* is_scaled = scaled_.data();
  const uint32_t* in_first = g_.in_first.data();
  int64_t* time = time_.data();
  const uint32_t n = uint32_t(g_.num_nodes());
  for (uint32_t v = first; v < n; ++v) {
    if (in_first[v] == in_first[v + 1]) continue;  // a node nothing leads to keeps its time
    int64_t t = INT64_MIN;
    for (uint32_t k = in_first[v]; k < in_first[v + 1]; ++k) {
      int64_t wt = weight[k];
      if (is_scaled[k]) wt = scaled_weight(wt, scale);
      t = std::max(t, time[from[k]] + wt);
    }
    time[v] = t;
  }
}

// The nodes a scaled edge leads to, and on from each whose time moved; once most of the nodes
// passed have moved (a change that spreads down a thread moves all after it), every node from
// there on, as replay_from() does, which costs less a node than following the marks. Returns
// where that began (the number of nodes when it did not).
uint32_t PartialReplay::replay_marked(const std::vector<uint32_t>& scaled, double scale) {
  for (uint32_t k : scaled) mark(g_.edges[k].to);
  const uint32_t first = g_.edges[scaled.front()].to;
  const size_t first_word = first >> 6;
  const uint32_t* from = g_.edge_from.data();
  const int64_t* weight = g_.edge_weight_ps.data();
  const uint8_t* is_scaled = scaled_.data();
  int64_t* time = time_.data();
  // Edges go from lower to higher numbers, so marks land ahead of the scan.
  for (size_t w = first_word; w < dirty_.size(); ++w) {
    while (dirty_[w] != 0) {
      const uint32_t v = uint32_t(w * 64 + size_t(std::countr_zero(dirty_[w])));
      dirty_[w] &= dirty_[w] - 1;
      int64_t t = INT64_MIN;
      for (uint32_t k = g_.in_first[v]; k < g_.in_first[v + 1]; ++k) {
        int64_t wt = weight[k];
        if (is_scaled[k]) wt = scaled_weight(wt, scale);
        t = std::max(t, time[from[k]] + wt);
      }
      if (t == time[v]) continue;  // absorbed: nothing after it moves
      time[v] = t;
      changed_.push_back(v);
      for (uint32_t i = out_.first[v]; i < out_.first[v + 1]; ++i) mark(out_.to[i]);
      const uint32_t passed = v + 1 - first;
      if (passed >= kSpreadAfter && changed_.size() * 2 >= passed) {
        std::fill(dirty_.begin() + long(w), dirty_.end(), 0);
        replay_from(v + 1, scale);
        return v + 1;
      }
    }
  }
  return uint32_t(g_.num_nodes());
}

}  // namespace mlprof::analysis
