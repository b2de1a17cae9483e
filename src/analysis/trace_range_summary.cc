#include "analysis/trace_range_summary.h"

#include <algorithm>

namespace mlprof::analysis {

TraceRangeSummary summarize_trace_range(const model::Profile& p, int64_t begin_ps, int64_t end_ps,
                                        const std::vector<uint32_t>& lines, size_t limit) {
  TraceRangeSummary out;
  std::vector<uint64_t> count(p.names.size(), 0);
  std::vector<int64_t> total(p.names.size(), 0);
  auto add_line = [&](uint32_t l) {
    const model::Line& line = p.lines[l];
    for (uint32_t e = line.first_event; e < line.first_event + line.num_events; ++e) {
      const int64_t s = p.start_ps(e), d = p.duration_ps(e);
      if (s >= end_ps || s + d < begin_ps || (d > 0 && s + d == begin_ps)) continue;
      const uint32_t n = p.events.name[e];
      ++count[n];
      total[n] += std::min(s + d, end_ps) - std::max(s, begin_ps);
      ++out.events;
    }
  };
  if (lines.empty()) {
    for (uint32_t l = 0; l < p.lines.size(); ++l) add_line(l);
  } else {
    for (uint32_t l : lines)
      if (l < p.lines.size()) add_line(l);
  }
  std::vector<uint32_t> named;
  for (uint32_t n = 0; n < count.size(); ++n)
    if (count[n]) named.push_back(n);
  out.distinct_names = named.size();
  std::sort(named.begin(), named.end(), [&](uint32_t a, uint32_t b) {
    return total[a] != total[b] ? total[a] > total[b] : count[a] > count[b];
  });
  if (named.size() > limit) named.resize(limit);
  for (uint32_t n : named) out.names.push_back({std::string(p.strings.view(p.names[n].name)), count[n], total[n]});
  return out;
}

}  // namespace mlprof::analysis
