// A search of a sorted range that starts from where the last one ended: searches for values
// that mostly ascend (the correlation ids of a stream's kernels, looked up among the sorted
// launches) then touch a few neighbouring entries, not a cache miss at each halving of the range.
#pragma once

#include <algorithm>
#include <cstddef>

namespace mlprof::analysis {

// std::lower_bound(first, last, value, less), found by galloping from `hint` (in [first, last]).
template <typename It, typename T, typename Less>
It lower_bound_near(It first, It last, It hint, const T& value, Less less) {
  size_t step = 1;
  if (hint == last || !less(*hint, value)) {
    // The answer lies at or before hint: step back until an entry is less than the value.
    for (It hi = hint;; step *= 2) {
      if (size_t(hi - first) <= step) return std::lower_bound(first, hi, value, less);
      const It probe = hi - ptrdiff_t(step);
      if (less(*probe, value)) return std::lower_bound(probe + 1, hi, value, less);
      hi = probe;
    }
  }
  // The answer lies after hint: step on until an entry is not less than the value.
  for (It lo = hint + 1;; step *= 2) {
    if (size_t(last - lo) <= step) return std::lower_bound(lo, last, value, less);
    const It probe = lo + ptrdiff_t(step);
    if (!less(*probe, value)) return std::lower_bound(lo, probe, value, less);
    lo = probe + 1;
  }
}

}  // namespace mlprof::analysis
