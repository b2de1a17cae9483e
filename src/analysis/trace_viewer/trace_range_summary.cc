#include "analysis/trace_viewer/trace_range_summary.h"

#include <algorithm>
#include <set>
#include <tuple>
#include <unordered_map>

namespace mlprof::analysis {
namespace {

struct Clipped {
  model::EventIndex event;
  int64_t begin, end;  // inside the range
};

// Self time per event of one line: between two consecutive starts or ends, the time belongs
// to the open event that started last (the longer first at equal starts: the parent).
std::vector<int64_t> self_times(const model::Profile& p, std::vector<Clipped>& events) {
  std::sort(events.begin(), events.end(), [&](const Clipped& a, const Clipped& b) {
    const int64_t sa = p.start_ps(a.event), sb = p.start_ps(b.event);
    if (sa != sb) return sa < sb;
    const int64_t da = p.duration_ps(a.event), db = p.duration_ps(b.event);
    return da != db ? da > db : a.event < b.event;
  });
  // (time, 0 for an end and 1 for a start, the event's rank): ends first at equal times.
  std::vector<std::tuple<int64_t, int, uint32_t>> marks;
  marks.reserve(events.size() * 2);
  for (uint32_t r = 0; r < events.size(); ++r) {
    marks.emplace_back(events[r].begin, 1, r);
    marks.emplace_back(events[r].end, 0, r);
  }
  std::sort(marks.begin(), marks.end());
  std::vector<int64_t> self(events.size(), 0);
  std::set<uint32_t> open;
  int64_t last = 0;
  for (const auto& [t, starts, r] : marks) {
    if (!open.empty()) self[*open.rbegin()] += t - last;
    last = t;
    if (starts) open.insert(r);
    else open.erase(r);
  }
  return self;
}

}  // namespace

TraceRangeSummary summarize_trace_range(const model::Profile& p, int64_t begin_ps, int64_t end_ps,
                                        const std::vector<uint32_t>& lines, size_t limit) {
  TraceRangeSummary out;
  std::vector<Clipped> clipped;
  auto add_line = [&](uint32_t l) {
    const model::Line& line = p.lines[l];
    clipped.clear();
    for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
      const int64_t s = p.start_ps(e), d = p.duration_ps(e);
      if (s >= end_ps || s + d < begin_ps || (d > 0 && s + d == begin_ps)) continue;
      clipped.push_back({e, std::max(s, begin_ps), std::min(s + d, end_ps)});
    }
    if (clipped.empty()) return;
    ++out.tracks;
    out.events += clipped.size();
    const std::vector<int64_t> self = self_times(p, clipped);
    std::unordered_map<uint32_t, size_t> row_of_name;
    for (size_t i = 0; i < clipped.size(); ++i) {
      const uint32_t n = p.events.name[clipped[i].event];
      auto [it, added] = row_of_name.emplace(n, out.names.size());
      if (added) out.names.push_back({std::string(p.strings.view(p.names[n].name)), l});
      RangeNameTotal& row = out.names[it->second];
      ++row.count;
      row.self_ps += self[i];
      row.total_ps += clipped[i].end - clipped[i].begin;
      out.busy_ps += self[i];
    }
  };
  if (lines.empty()) {
    for (uint32_t l = 0; l < p.lines.size(); ++l) add_line(l);
  } else {
    for (uint32_t l : lines)
      if (l < p.lines.size()) add_line(l);
  }
  out.distinct_names = out.names.size();
  std::stable_sort(out.names.begin(), out.names.end(), [](const RangeNameTotal& a, const RangeNameTotal& b) {
    if (a.self_ps != b.self_ps) return a.self_ps > b.self_ps;
    return a.total_ps != b.total_ps ? a.total_ps > b.total_ps : a.count > b.count;
  });
  if (out.names.size() > limit) out.names.resize(limit);
  return out;
}

}  // namespace mlprof::analysis
