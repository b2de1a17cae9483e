// What a time range of the trace holds, as the trace viewer's range selection shows it (like
// Perfetto's area selection): per event name, how many events overlap the range and their total
// time inside it, the longest total first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

struct RangeNameTotal {
  std::string name;
  uint64_t count = 0;
  int64_t total_ps = 0;  // the events' time inside the range
};

struct TraceRangeSummary {
  uint64_t events = 0;                // every event overlapping the range
  std::vector<RangeNameTotal> names;  // the longest total first, at most `limit`
  size_t distinct_names = 0;
};

// Events on the lines listed in `lines` (all lines when empty) overlapping [begin_ps, end_ps).
TraceRangeSummary summarize_trace_range(const model::Profile& profile, int64_t begin_ps, int64_t end_ps,
                                        const std::vector<uint32_t>& lines, size_t limit);

}  // namespace mlprof::analysis
