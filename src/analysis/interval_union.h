// Length of a union of time intervals (busy time of overlapping events).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/sort_runs.h"

namespace mlprof::analysis {

using TimeInterval = std::pair<int64_t, int64_t>;  // [begin, end) in ps

// Calls visit(interval) for the intervals by begin. They mostly come in a few runs already in
// that order (a line's events): those are walked side by side, nothing moved or allocated for
// them; else the intervals are sorted in place.
template <typename Visit>
void visit_by_begin(std::vector<TimeInterval>& intervals, Visit&& visit) {
  auto by_begin = [](const TimeInterval& a, const TimeInterval& b) { return a.first < b.first; };
  std::vector<size_t> bounds{0};  // each run's first interval
  for (size_t i = 1; i < intervals.size() && bounds.size() <= kFewSortedRuns; ++i)
    if (by_begin(intervals[i], intervals[i - 1])) bounds.push_back(i);
  if (bounds.size() > kFewSortedRuns) {
    std::sort(intervals.begin(), intervals.end(), by_begin);
    for (const TimeInterval& i : intervals) visit(i);
    return;
  }
  bounds.push_back(intervals.size());
  visit_sorted_runs(intervals, bounds, by_begin, visit);
}

inline int64_t union_length(std::vector<TimeInterval>& intervals) {
  int64_t total = 0, begin = 0, end = INT64_MIN;
  visit_by_begin(intervals, [&](const TimeInterval& i) {
    if (i.first > end) {
      if (end > begin) total += end - begin;
      begin = i.first;
      end = i.second;
    } else {
      end = std::max(end, i.second);
    }
  });
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
  std::vector<TimeInterval> out;
  visit_by_begin(intervals, [&](const TimeInterval& i) {
    if (!out.empty() && i.first <= out.back().second) out.back().second = std::max(out.back().second, i.second);
    else out.push_back(i);
  });
  return out;
}

}  // namespace mlprof::analysis
