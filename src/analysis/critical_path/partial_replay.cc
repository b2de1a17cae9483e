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
  // Counted one place on, so that first[v + 1], the fill point of v's edges, ends as v's end.
  out.first.assign(n + 2, 0);
  for (uint32_t from : g.edge_from) ++out.first[from + 2];
  for (size_t v = 1; v <= n; ++v) out.first[v + 1] += out.first[v];
  out.to.resize(g.edge_from.size());
  uint32_t* fill = out.first.data() + 1;
  const uint32_t* from = g.edge_from.data();
  const uint32_t* in_first = g.in_first.data();
  for (uint32_t v = 0; v < n; ++v)  // edges are grouped by target
    for (uint32_t k = in_first[v]; k < in_first[v + 1]; ++k) out.to[fill[from[k]]++] = v;
  out.first.pop_back();
  return out;
}

PartialReplay::PartialReplay(const DependencyGraph& g, const UnfilledVector<int64_t>& measured_ps, const OutEdges& out)
    : g_(g), measured_(measured_ps), out_(out), dirty_((g.num_nodes() + 63) / 64, 0), scaled_(g.edges.size(), 0) {
  lane(0);
}

PartialReplay::Lane& PartialReplay::lane(size_t l) {
  Lane& ln = lanes_[l];
  if (ln.time.size() != measured_.size()) {
    ln.time.assign(measured_.begin(), measured_.end());
    ln.stale_from = uint32_t(g_.num_nodes());
  }
  return ln;
}

double PartialReplay::mean_step_ms(const std::vector<uint32_t>& scaled, double scale) {
  const size_t n = g_.num_reported_steps();
  return n == 0 ? 0 : total_step_ps(scaled, scale) / double(n) / 1e9;
}

double PartialReplay::total_step_ps(const std::vector<uint32_t>& scaled, double scale) {
  return total_step_ps(std::vector<Change>{{&scaled, scale}}).front();
}

std::vector<double> PartialReplay::total_step_ps(const std::vector<Change>& changes) {
  std::vector<double> total(changes.size(), 0);
  if (g_.steps.empty()) return total;
  std::optional<Started> waiting;  // a change ready for its pass, waiting for another to share it
  size_t waiting_lane = 0;
  for (size_t i = 0; i < changes.size(); ++i) {
    const size_t l = waiting ? 1 - waiting_lane : 0;
    const std::optional<Started> started = begin(i, changes[i], l, &total[i]);
    if (!started) continue;
    if (!waiting) {
      waiting = started;
      waiting_lane = l;
      continue;
    }
    // Both from the earlier start: a lane's nodes from there to its own start replay to the
    // times they hold.
    size_t in_lane[2];
    in_lane[waiting_lane] = waiting->change;
    in_lane[l] = i;
    const uint32_t start = std::min(waiting->start, started->start);
    replay_both_from(start, changes[in_lane[0]].second, changes[in_lane[1]].second);
    for (size_t k = 0; k < 2; ++k) {
      total[in_lane[k]] = total_step_ps_of(lanes_[k].time.data());
      finish(k, start);
    }
    // No lane holds a change now: many marks are cleared faster all at once.
    if ((changes[in_lane[0]].first->size() + changes[in_lane[1]].first->size()) * 8 >= scaled_.size()) {
      std::fill(scaled_.begin(), scaled_.end(), 0);
    } else {
      for (size_t k = 0; k < 2; ++k) unmark(k, *changes[in_lane[k]].first);
    }
    waiting.reset();
  }
  if (waiting) {
    const Change& change = changes[waiting->change];
    replay_from(waiting_lane, waiting->start, change.second);
    total[waiting->change] = total_step_ps_of(lanes_[waiting_lane].time.data());
    finish(waiting_lane, waiting->start);
    unmark(waiting_lane, *change.first);
  }
  return total;
}

std::optional<PartialReplay::Started> PartialReplay::begin(size_t index, const Change& change, size_t l,
                                                           double* total) {
  const std::vector<uint32_t>& scaled = *change.first;
  Lane& ln = lane(l);
  const uint32_t n = uint32_t(g_.num_nodes());
  if (scaled.empty()) {  // the measured times, as a lane holds them once restored
    *total = total_step_ps_of(measured_.data());
    return std::nullopt;
  }
  const uint8_t bit = uint8_t(1u << l);
  for (uint32_t k : scaled) scaled_[k] |= bit;
  const uint32_t first = g_.edges[scaled.front()].to;  // edges are grouped by target, and listed in order
  // A change of many edges moves most instants: replaying all from the first is cheaper than
  // following the marks. That replay writes every node it passes, so only those before it need
  // their measured times back.
  if (replays_to_end(scaled)) {
    measured_below(l, first);
    return Started{index, first};
  }
  measured_below(l, n);
  const uint32_t spread = replay_marked(l, scaled, change.second);
  if (spread < n) return Started{index, spread};
  *total = total_step_ps_of(ln.time.data());
  finish(l, n);
  unmark(l, scaled);
  return std::nullopt;
}

void PartialReplay::finish(size_t l, uint32_t all_from) {
  Lane& ln = lanes_[l];
  for (uint32_t v : ln.changed) ln.time[v] = measured_[v];
  ln.changed.clear();
  ln.stale_from = std::min(ln.stale_from, all_from);
}

void PartialReplay::unmark(size_t l, const std::vector<uint32_t>& scaled) {
  const uint8_t keep = uint8_t(~(1u << l));
  for (uint32_t k : scaled) scaled_[k] &= keep;
}

void PartialReplay::measured_below(size_t l, uint32_t end) {
  Lane& ln = lanes_[l];
  if (ln.stale_from >= end) return;
  std::copy(measured_.begin() + ln.stale_from, measured_.begin() + end, ln.time.begin() + ln.stale_from);
  ln.stale_from = end;
}

double PartialReplay::total_step_ps_of(const int64_t* time) const {
  double total = 0;
  for (const GraphStep& s : g_.steps)
    if (s.reported) total += double(time[s.sink] - replayed_begin_ps(g_, time, s));
  return total;
}

namespace {

// The scales asked most, for which a scaled weight is a select rather than a branch (the
// scaled edges are mixed with the others, so a branch on each would be mispredicted often).
enum class ScaleForm { kZero, kHalf, kOther };
ScaleForm form_of(double scale) {
  return scale == 0 ? ScaleForm::kZero : scale == 0.5 ? ScaleForm::kHalf : ScaleForm::kOther;
}
template <ScaleForm F>
inline int64_t scaled_as(int64_t w, double scale) {
  if constexpr (F == ScaleForm::kZero) return 0;
  else if constexpr (F == ScaleForm::kHalf) return (w + 1) >> 1;
  else return scaled_weight(w, scale);
}

template <ScaleForm F0, ScaleForm F1>
void replay_both(const DependencyGraph& g, const uint8_t* is_scaled, uint32_t first, double scale0, double scale1,
                 int64_t* time0, int64_t* time1) {
  const uint32_t n = uint32_t(g.num_nodes());
  const uint32_t* from = g.edge_from.data();
  const int64_t* weight = g.edge_weight_ps.data();
  const uint32_t* in_first = g.in_first.data();
  auto arrive = [&](uint32_t k, int64_t& a0, int64_t& a1) {
    const int64_t w = weight[k];
    const int64_t s0 = scaled_as<F0>(w, scale0), s1 = scaled_as<F1>(w, scale1);
    a0 = time0[from[k]] + (is_scaled[k] & 1 ? s0 : w);
    a1 = time1[from[k]] + (is_scaled[k] & 2 ? s1 : w);
  };
  // Most nodes have one in-edge: it is read outside the loop over the others.
  uint32_t k = in_first[first];
  for (uint32_t v = first; v < n; ++v) {
    const uint32_t end = in_first[v + 1];
    if (k == end) continue;  // a node nothing leads to keeps its time
    int64_t t0, t1;
    arrive(k, t0, t1);
    for (++k; k < end; ++k) {
      int64_t a0, a1;
      arrive(k, a0, a1);
      t0 = std::max(t0, a0);
      t1 = std::max(t1, a1);
    }
    time0[v] = t0;
    time1[v] = t1;
  }
}

}  // namespace

void PartialReplay::replay_both_from(uint32_t first, double scale0, double scale1) {
  int64_t* time0 = lanes_[0].time.data();
  int64_t* time1 = lanes_[1].time.data();
  const uint8_t* is_scaled = scaled_.data();
  auto with_second = [&]<ScaleForm F0>() {
    switch (form_of(scale1)) {
      case ScaleForm::kZero:
        return replay_both<F0, ScaleForm::kZero>(g_, is_scaled, first, scale0, scale1, time0, time1);
      case ScaleForm::kHalf:
        return replay_both<F0, ScaleForm::kHalf>(g_, is_scaled, first, scale0, scale1, time0, time1);
      default: return replay_both<F0, ScaleForm::kOther>(g_, is_scaled, first, scale0, scale1, time0, time1);
    }
  };
  switch (form_of(scale0)) {
    case ScaleForm::kZero: return with_second.template operator()<ScaleForm::kZero>();
    case ScaleForm::kHalf: return with_second.template operator()<ScaleForm::kHalf>();
    default: return with_second.template operator()<ScaleForm::kOther>();
  }
}

namespace {

template <ScaleForm F>
void replay_one(const DependencyGraph& g, const uint8_t* is_scaled, uint8_t bit, uint32_t first, double scale,
                int64_t* time) {
  const uint32_t n = uint32_t(g.num_nodes());
  const uint32_t* from = g.edge_from.data();
  const int64_t* weight = g.edge_weight_ps.data();
  const uint32_t* in_first = g.in_first.data();
  auto arrive = [&](uint32_t k) {
    int64_t w = weight[k];
    if constexpr (F == ScaleForm::kOther) {  // the library call only where scaled
      if (is_scaled[k] & bit) w = scaled_weight(w, scale);
    } else {
      w = is_scaled[k] & bit ? scaled_as<F>(w, scale) : w;
    }
    return time[from[k]] + w;
  };
  uint32_t k = in_first[first];  // as in replay_both
  for (uint32_t v = first; v < n; ++v) {
    const uint32_t end = in_first[v + 1];
    if (k == end) continue;  // a node nothing leads to keeps its time
    int64_t t = arrive(k);
    for (++k; k < end; ++k) t = std::max(t, arrive(k));
    time[v] = t;
  }
}

}  // namespace

void PartialReplay::replay_from(size_t l, uint32_t first, double scale) {
  const uint8_t* is_scaled = scaled_.data();
  const uint8_t bit = uint8_t(1u << l);
  int64_t* time = lanes_[l].time.data();
  switch (form_of(scale)) {
    case ScaleForm::kZero: return replay_one<ScaleForm::kZero>(g_, is_scaled, bit, first, scale, time);
    case ScaleForm::kHalf: return replay_one<ScaleForm::kHalf>(g_, is_scaled, bit, first, scale, time);
    default: return replay_one<ScaleForm::kOther>(g_, is_scaled, bit, first, scale, time);
  }
}

// Once most of the nodes passed have moved (a change that spreads down a thread moves all
// after it), replaying every node from there on costs less a node than following the marks.
uint32_t PartialReplay::replay_marked(size_t l, const std::vector<uint32_t>& scaled, double scale) {
  for (uint32_t k : scaled) mark(g_.edges[k].to);
  const uint32_t first = g_.edges[scaled.front()].to;
  const size_t first_word = first >> 6;
  const uint32_t* from = g_.edge_from.data();
  const int64_t* weight = g_.edge_weight_ps.data();
  const uint8_t* is_scaled = scaled_.data();
  const uint8_t bit = uint8_t(1u << l);
  Lane& ln = lanes_[l];
  int64_t* time = ln.time.data();
  // Edges go from lower to higher numbers, so marks land ahead of the scan.
  for (size_t w = first_word; w < dirty_.size(); ++w) {
    while (dirty_[w] != 0) {
      const uint32_t v = uint32_t(w * 64 + size_t(std::countr_zero(dirty_[w])));
      dirty_[w] &= dirty_[w] - 1;
      int64_t t = INT64_MIN;
      for (uint32_t k = g_.in_first[v]; k < g_.in_first[v + 1]; ++k) {
        int64_t wt = weight[k];
        if (is_scaled[k] & bit) wt = scaled_weight(wt, scale);
        t = std::max(t, time[from[k]] + wt);
      }
      if (t == time[v]) continue;  // absorbed: nothing after it moves
      time[v] = t;
      ln.changed.push_back(v);
      for (uint32_t i = out_.first[v]; i < out_.first[v + 1]; ++i) mark(out_.to[i]);
      const uint32_t passed = v + 1 - first;
      if (passed >= kSpreadAfter && ln.changed.size() * 2 >= passed) {
        std::fill(dirty_.begin() + long(w), dirty_.end(), 0);
        return v + 1;
      }
    }
  }
  return uint32_t(g_.num_nodes());
}

}  // namespace mlprof::analysis
