// Length of a union of time intervals (busy time of overlapping events).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace mlprof::analysis {

using TimeInterval = std::pair<int64_t, int64_t>;  // [begin, end) in ps

inline int64_t union_length(std::vector<TimeInterval>& intervals) {
  std::sort(intervals.begin(), intervals.end());
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
  std::sort(intervals.begin(), intervals.end());
  std::vector<TimeInterval> out;
  for (const auto& i : intervals) {
    if (!out.empty() && i.first <= out.back().second) out.back().second = std::max(out.back().second, i.second);
    else out.push_back(i);
  }
  return out;
}

}  // namespace mlprof::analysis
