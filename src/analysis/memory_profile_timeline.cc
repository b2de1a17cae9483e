#include "analysis/memory_profile_timeline.h"

#include <algorithm>
#include <numeric>

namespace mlprof::analysis {
namespace {

// Calls visit(index) for each run of equal values higher (sign +1) or lower (sign -1) than
// the runs beside it, ascending, at the run's first index; a series' ends count when they are
// higher (lower) than their one neighbour; a flat line has one maximum, its start. Walks the
// series once and keeps nothing: a timeline can have tens of millions of events.
template <typename Visit>
void for_each_extreme(std::span<const int64_t> v, int sign, Visit&& visit) {
  const size_t n = v.size();
  if (n == 0) return;
  auto beyond = [&](int64_t a, int64_t b) { return sign > 0 ? a > b : a < b; };
  bool has_before = false;
  int64_t before = 0;  // the value of the run before the current one
  size_t start = 0;    // the current run's first index
  for (size_t i = 1; i <= n; ++i) {
    if (i < n && v[i] == v[start]) continue;
    if (!has_before && i == n) {  // a flat line
      if (sign > 0) visit(start);
      return;
    }
    const int64_t value = v[start];
    if ((!has_before || beyond(value, before)) && (i == n || beyond(value, v[i]))) visit(start);
    has_before = true;
    before = value;
    start = i;
  }
}

// At most `budget` of the extremes: all if they fit, else the most extreme of each of
// `budget` consecutive groups of them (the first one on ties).
std::vector<size_t> thinned_extremes(std::span<const int64_t> v, int sign, size_t budget) {
  size_t count = 0;
  for_each_extreme(v, sign, [&](size_t) { ++count; });
  std::vector<size_t> out;
  if (budget == 0) return out;
  out.reserve(std::min(count, budget));
  if (count <= budget) {
    for_each_extreme(v, sign, [&](size_t i) { out.push_back(i); });
    return out;
  }
  size_t rank = 0, group = 0, group_end = count / budget, best = 0;
  for_each_extreme(v, sign, [&](size_t i) {
    if (rank == group_end) {  // every group holds at least one: count > budget
      out.push_back(best);
      ++group;
      group_end = count * (group + 1) / budget;
    }
    if (rank == count * group / budget || (sign > 0 ? v[i] > v[best] : v[i] < v[best])) best = i;
    ++rank;
  });
  out.push_back(best);
  return out;
}

}  // namespace

std::vector<size_t> local_maxima(std::span<const int64_t> in_use) {
  std::vector<size_t> out;
  for_each_extreme(in_use, +1, [&](size_t i) { out.push_back(i); });
  return out;
}

std::vector<size_t> select_timeline_points(std::span<const int64_t> in_use, size_t budget) {
  if (in_use.size() <= budget) {
    std::vector<size_t> all(in_use.size());
    std::iota(all.begin(), all.end(), size_t(0));
    return all;
  }
  std::vector<size_t> kept = thinned_extremes(in_use, +1, budget);
  if (kept.size() < budget) {
    const std::vector<size_t> minima = thinned_extremes(in_use, -1, budget - kept.size());
    kept.insert(kept.end(), minima.begin(), minima.end());
    std::sort(kept.begin(), kept.end());
  }
  return kept;
}

}  // namespace mlprof::analysis
