#include "analysis/memory_profile_timeline.h"

#include <algorithm>
#include <numeric>

namespace mlprof::analysis {
namespace {

// The first index of each run of equal values.
std::vector<size_t> run_starts(std::span<const int64_t> v) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < v.size(); ++i)
    if (i == 0 || v[i] != v[i - 1]) starts.push_back(i);
  return starts;
}

// Runs higher (sign +1) or lower (sign -1) than the runs beside them; a series' ends count
// when they are higher (lower) than their one neighbour.
std::vector<size_t> local_extremes(std::span<const int64_t> v, int sign) {
  const std::vector<size_t> runs = run_starts(v);
  if (runs.size() == 1) return sign > 0 ? runs : std::vector<size_t>();  // a flat line: its start
  auto beyond = [&](int64_t a, int64_t b) { return sign > 0 ? a > b : a < b; };
  std::vector<size_t> out;
  for (size_t r = 0; r < runs.size(); ++r) {
    const int64_t value = v[runs[r]];
    if ((r == 0 || beyond(value, v[runs[r - 1]])) && (r + 1 == runs.size() || beyond(value, v[runs[r + 1]])))
      out.push_back(runs[r]);
  }
  return out;
}

// At most `budget` of `candidates`: all if they fit, else the most extreme of each of `budget`
// consecutive groups (the first one on ties).
std::vector<size_t> thin(const std::vector<size_t>& candidates, size_t budget, std::span<const int64_t> v, int sign) {
  if (candidates.size() <= budget) return candidates;
  std::vector<size_t> out;
  out.reserve(budget);
  for (size_t g = 0; g < budget; ++g) {
    const size_t lo = candidates.size() * g / budget, hi = candidates.size() * (g + 1) / budget;
    size_t best = candidates[lo];
    for (size_t i = lo + 1; i < hi; ++i)
      if (sign > 0 ? v[candidates[i]] > v[best] : v[candidates[i]] < v[best]) best = candidates[i];
    out.push_back(best);
  }
  return out;
}

}  // namespace

std::vector<size_t> local_maxima(std::span<const int64_t> in_use) { return local_extremes(in_use, +1); }

std::vector<size_t> select_timeline_points(std::span<const int64_t> in_use, size_t budget) {
  if (in_use.size() <= budget) {
    std::vector<size_t> all(in_use.size());
    std::iota(all.begin(), all.end(), size_t(0));
    return all;
  }
  std::vector<size_t> kept = thin(local_extremes(in_use, +1), budget, in_use, +1);
  if (kept.size() < budget) {
    const std::vector<size_t> minima = thin(local_extremes(in_use, -1), budget - kept.size(), in_use, -1);
    kept.insert(kept.end(), minima.begin(), minima.end());
    std::sort(kept.begin(), kept.end());
  }
  return kept;
}

}  // namespace mlprof::analysis
