#include "analysis/trace_viewer/trace_lanes.h"

#include <algorithm>

namespace mlprof::analysis {

// Bounds the work per event on pathological files (thousands of mutually overlapping events):
// beyond it, events share the last lane even if they overlap there.
constexpr size_t kMaxLanes = 1024;

LinePlacement place_line_events(const model::Profile& p, uint32_t line_index) {
  const model::Line& line = p.lines[line_index];
  LinePlacement out;
  out.lane.resize(line.num_events);
  out.depth.resize(line.num_events);
  std::vector<std::vector<int64_t>> open_ends;  // per lane: ends of its open events, innermost last
  for (uint32_t i = 0; i < line.num_events; ++i) {
    const model::EventIndex e = line.first_event + i;
    const int64_t start = p.start_ps(e), end = p.end_ps(e);
    size_t lane = 0;
    for (;; ++lane) {
      if (lane == open_ends.size()) open_ends.emplace_back();
      auto& ends = open_ends[lane];
      while (!ends.empty() && ends.back() <= start) ends.pop_back();
      if (ends.empty() || ends.back() >= end) break;
      if (lane + 1 == kMaxLanes) {
        ends.clear();
        break;
      }
    }
    out.lane[i] = uint16_t(lane);
    out.depth[i] = uint16_t(std::min<size_t>(open_ends[lane].size(), UINT16_MAX));
    open_ends[lane].push_back(end);
  }
  out.num_lanes = uint16_t(open_ends.size());
  return out;
}

}  // namespace mlprof::analysis
