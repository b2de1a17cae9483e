// Vectors made of runs that are usually sorted already (one run per thread, in time order:
// correlation ids grow with time): sorted by merging the runs instead of sorting everything,
// or walked in order without moving anything.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace mlprof::analysis {

// `run_starts` holds the index where each run begins (the first is 0).
template <typename T, typename Less>
void sort_runs(std::vector<T>& v, std::vector<size_t> run_starts, Less less) {
  run_starts.push_back(v.size());
  for (size_t r = 0; r + 1 < run_starts.size(); ++r) {
    auto b = v.begin() + ptrdiff_t(run_starts[r]), e = v.begin() + ptrdiff_t(run_starts[r + 1]);
    if (!std::is_sorted(b, e, less)) std::sort(b, e, less);
  }
  // Merge neighbouring runs pairwise until one is left: log2(runs) passes over the data.
  while (run_starts.size() > 2) {
    const size_t runs = run_starts.size() - 1;
    std::vector<size_t> next;
    for (size_t r = 0; r < runs; r += 2) {
      next.push_back(run_starts[r]);
      if (r + 1 < runs)
        std::inplace_merge(v.begin() + ptrdiff_t(run_starts[r]), v.begin() + ptrdiff_t(run_starts[r + 1]),
                           v.begin() + ptrdiff_t(run_starts[r + 2]), less);
    }
    next.push_back(v.size());
    run_starts = std::move(next);
  }
}

// Up to this many sorted runs are walked side by side (visit_sorted_runs); more are sorted.
inline constexpr size_t kFewSortedRuns = 8;

// Calls visit(item) for the items of `v` in order, where `v` is a few runs each sorted already
// (`bounds`: each run's first index, then v.size()): the runs are walked side by side, nothing
// moved or copied; of equal items, the earlier run's come first.
template <typename T, typename Less, typename Visit>
void visit_sorted_runs(const std::vector<T>& v, const std::vector<size_t>& bounds, Less less, Visit&& visit) {
  if (bounds.size() < 2) return;
  std::vector<size_t> next(bounds.begin(), bounds.end() - 1);  // each run's next item
  const size_t none = next.size();
  for (;;) {
    // The run whose next item comes first, and the runner-up (the first of equals in each).
    size_t least = none, second = none;
    for (size_t r = 0; r < next.size(); ++r) {
      if (next[r] == bounds[r + 1]) continue;
      if (least == none || less(v[next[r]], v[next[least]])) second = least, least = r;
      else if (second == none || less(v[next[r]], v[next[second]])) second = r;
    }
    if (least == none) return;
    // The least run's items go on while they come before the runner-up's next one: the other
    // runs' next items do not change meanwhile, so they are not compared again.
    const size_t end = bounds[least + 1];
    do visit(v[next[least]++]);
    while (next[least] < end &&
           (second == none || less(v[next[least]], v[next[second]]) ||
            (least < second && !less(v[next[second]], v[next[least]]))));
  }
}

}  // namespace mlprof::analysis
