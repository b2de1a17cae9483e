// Length of a union of time intervals (busy time of overlapping events).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/sort_runs.h"

namespace mlprof::analysis {

using TimeInterval = std::pair<int64_t, int64_t>;  // [begin, end) in ps

// Orders intervals by begin. They mostly come in runs already in that order (a line's events):
// merged where there are few, sorted where there are many.
inline void sort_by_begin(std::vector<TimeInterval>& intervals) {
  std::vector<size_t> runs{0};
  for (size_t i = 1; i < intervals.size() && runs.size() <= intervals.size() / 16; ++i)
    if (intervals[i].first < intervals[i - 1].first) runs.push_back(i);
  auto earlier = [](const TimeInterval& a, const TimeInterval& b) { return a.first < b.first; };
  if (runs.size() > intervals.size() / 16) std::sort(intervals.begin(), intervals.end(), earlier);
  else sort_runs(intervals, std::move(runs), earlier);
}

// Leaves the intervals ordered by begin.
inline int64_t union_length(std::vector<TimeInterval>& intervals) {
  sort_by_begin(intervals);
  int64_t total = 0, begin = 0, end = INT64_MIN;
  for (const auto& [b, e] : intervals) {
    if (b > end) {
      if (end > begin) total += end - begin;
      begin = b;
      end = e;
    } else {
      end = std::max(end, e);
    }
  }
  if (end > begin) total += end - begin;
  return total;
}

// Length of `window` covered by `sorted_union` (disjoint, sorted intervals).
inline int64_t covered_length(const std::vector<TimeInterval>& sorted_union, TimeInterval window) {
  int64_t total = 0;
  auto it = std::lower_bound(sorted_union.begin(), sorted_union.end(), TimeInterval{window.first, INT64_MIN},
                             [](const TimeInterval& a, const TimeInterval& b) { return a.second <= b.first; });
  for (; it != sorted_union.end() && it->first < window.second; ++it)
    total += std::max<int64_t>(0, std::min(it->second, window.second) - std::max(it->first, window.first));
  return total;
}

// Merges intervals into a sorted list of disjoint ones.
inline std::vector<TimeInterval> merged(std::vector<TimeInterval> intervals) {
  sort_by_begin(intervals);
  std::vector<TimeInterval> out;
  for (const auto& i : intervals) {
    if (!out.empty() && i.first <= out.back().second) out.back().second = std::max(out.back().second, i.second);
    else out.push_back(i);
  }
  return out;
}

}  // namespace mlprof::analysis
