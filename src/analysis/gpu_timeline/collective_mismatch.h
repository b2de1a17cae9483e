// What the stragglers analysis could not match across ranks (docs/ARCHITECTURE.md §5.9): steps
// that some ranks ran and others did not, and collective calls that some ranks made and others
// did not (a rank missing from a call, a call in another process group, different step ranges). The
// analysis compares ranks where they match; each problem is named here in one line.
#pragma once

#include <string>
#include <vector>

#include "analysis/gpu_timeline/stragglers.h"

namespace mlprof::analysis {

inline constexpr size_t kMaxMismatchLines = 12;

// One line per problem, at most kMaxMismatchLines (the last then says how many more).
std::vector<std::string> collective_mismatches(const std::vector<const RankSteps*>& ranks);

// "3", "3-5", "3-5, 9": step numbers, sorted, as ranges.
std::string step_ranges(const std::vector<int64_t>& sorted_steps);

}  // namespace mlprof::analysis
