// Reduces a memory timeline to a few points a chart can draw without losing what matters:
// the highs (docs/ARCHITECTURE.md §5.5: at most 1,000 points, keeping every maximum).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace mlprof::analysis {

// Picks at most `budget` indices of `in_use` (memory in use after each event), ascending:
//  - every local maximum (the first event of a run of equal values higher than the runs on
//    both sides) when there are at most `budget` of them; with more, the maxima are cut into
//    `budget` consecutive groups and the highest of each is kept (so the overall peak always is);
//  - then, while room is left, the local minima, thinned the same way (the lowest per group),
//    so that the chart shows the valleys between the peaks.
// With at most `budget` events, all of them.
std::vector<size_t> select_timeline_points(std::span<const int64_t> in_use, size_t budget);

// The local maxima of `in_use` as defined above, ascending (for tests and callers that want all).
std::vector<size_t> local_maxima(std::span<const int64_t> in_use);

}  // namespace mlprof::analysis
