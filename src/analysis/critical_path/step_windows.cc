#include "analysis/critical_path/step_windows.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace mlprof::analysis {
namespace {

using model::EventIndex;
using model::kNone;

bool is_host_thread(const model::Profile& p, const model::Line& line) {
  return line.kind == model::LineKind::kThread && p.planes[line.plane].kind == model::PlaneKind::kHostThreads;
}

// The first event of the line starting at or after t (events of a line are in start order).
EventIndex first_at(const model::Profile& p, const model::Line& line, int64_t t) {
  const auto begin = p.events.start_ps.begin() + line.first_event;
  return EventIndex(std::lower_bound(begin, begin + line.num_events, t) - p.events.start_ps.begin());
}

// The events starting before t, over all lines.
size_t events_before(const model::Profile& p, int64_t t) {
  size_t n = 0;
  for (const model::Line& line : p.lines) n += first_at(p, line, t) - line.first_event;
  return n;
}

// The events a window's graph is built from, but for those open at its begin.
size_t window_size(const model::Profile& p, const StepWindow& w) {
  size_t n = 0;
  for (const model::Line& line : p.lines)
    n += first_at(p, line, is_host_thread(p, line) ? w.end_ps : w.device_end_ps) - first_at(p, line, w.begin_ps);
  return n;
}

}  // namespace

std::vector<StepWindow> step_windows(const model::Profile& p, const StepAnalysis& steps,
                                     const std::vector<StepSpan>& spans, size_t events_per_window) {
  auto whole = [&] {
    StepWindow w;
    w.whole = true;
    w.own.resize(spans.size());
    std::iota(w.own.begin(), w.own.end(), 0u);
    return std::vector<StepWindow>{std::move(w)};
  };
  if (p.num_events() <= events_per_window || spans.size() < 2) return whole();
  std::vector<uint32_t> order(spans.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return spans[a].begin_ps < spans[b].begin_ps; });
  // Cuts: each window ends where the next begins; the smallest run of steps holding enough
  // events (found by halving: the count grows with the steps).
  std::vector<std::pair<size_t, size_t>> runs;  // [first, end) in `order`
  for (size_t a = 0; a < order.size();) {
    const size_t before = events_before(p, spans[order[a]].begin_ps);
    size_t lo = a + 1, hi = order.size();  // the end lies in [lo, hi]
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (events_before(p, spans[order[mid]].begin_ps) - before >= events_per_window) hi = mid;
      else lo = mid + 1;
    }
    runs.emplace_back(a, lo);
    a = lo;
  }
  if (runs.size() < 2) return whole();
  // Each span's previous one on its host, in time order.
  std::vector<int64_t> previous(spans.size(), -1);
  {
    std::map<uint32_t, uint32_t> last_of_host;
    for (uint32_t i : order) {
      if (auto it = last_of_host.find(spans[i].host); it != last_of_host.end()) previous[i] = it->second;
      last_of_host[spans[i].host] = i;
    }
  }
  const StepGrouping& grouping = steps.grouping;
  std::vector<StepWindow> out;
  for (const auto& [first, end] : runs) {
    StepWindow w;
    if (first > 0) w.counted_begin_ps = spans[order[first]].begin_ps;
    if (end < order.size()) w.counted_end_ps = spans[order[end]].begin_ps;
    w.own.assign(order.begin() + long(first), order.begin() + long(end));
    std::sort(w.own.begin(), w.own.end());
    std::map<uint32_t, uint32_t> first_of_host;  // the earliest own span of each host
    w.begin_ps = INT64_MAX;
    w.end_ps = INT64_MIN;
    for (size_t k = first; k < end; ++k) {
      const StepSpan& s = spans[order[k]];
      first_of_host.try_emplace(s.host, order[k]);
      w.begin_ps = std::min(w.begin_ps, s.begin_ps);
      w.end_ps = std::max(w.end_ps, s.end_ps);
    }
    w.device_end_ps = w.end_ps;
    for (uint32_t i : w.own)
      if (spans[i].group < grouping.steps.size() && grouping.steps[spans[i].group].has_device_work())
        w.device_end_ps = std::max(w.device_end_ps, grouping.steps[spans[i].group].device_end_ps);
    for (const auto& [host, i] : first_of_host)
      if (previous[i] >= 0) {
        w.context.push_back(uint32_t(previous[i]));
        w.begin_ps = std::min(w.begin_ps, spans[size_t(previous[i])].begin_ps);
      }
    std::sort(w.context.begin(), w.context.end());
    // A window holding half the profile (a step spanning most of it, as where steps were not
    // told apart) saves little memory for building its events twice: one graph then.
    if (2 * window_size(p, w) > p.num_events()) return whole();
    out.push_back(std::move(w));
  }
  return out;
}

EventSelection window_events(const model::Profile& p, const StepWindow& w) {
  if (w.whole) return EventSelection::whole(p);
  EventSelection out(p);
  for (uint32_t l = 0; l < p.lines.size(); ++l) {
    const model::Line& line = p.lines[l];
    if (line.num_events == 0) continue;
    const bool host = is_host_thread(p, line);
    const EventIndex lo = first_at(p, line, w.begin_ps);
    const EventIndex hi = first_at(p, line, host ? w.end_ps : w.device_end_ps);
    if (host && lo > line.first_event) {
      // The events open at the window's begin: the last one to start before it and its
      // enclosing ones, those that end after it (parents come before their children).
      std::vector<EventIndex> open;
      for (EventIndex e = lo - 1; e != kNone && e >= line.first_event; e = p.events.parent[e]) {
        if (p.end_ps(e) > w.begin_ps) open.push_back(e);
        if (p.events.parent[e] != kNone && p.events.parent[e] >= e) break;
      }
      for (auto it = open.rbegin(); it != open.rend(); ++it) out.add(l, *it, 1);
    }
    out.add(l, lo, hi - lo);
  }
  out.finish();
  return out;
}

std::vector<StepSpan> window_spans(const std::vector<StepSpan>& spans, const StepWindow& w) {
  std::vector<StepSpan> out;
  out.reserve(w.context.size() + w.own.size());
  for (uint32_t i : w.context) out.push_back(spans[i]);
  for (uint32_t i : w.own) out.push_back(spans[i]);
  return out;
}

}  // namespace mlprof::analysis
