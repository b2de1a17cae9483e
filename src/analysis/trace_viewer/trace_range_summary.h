// What a time range of the trace holds, as the trace viewer's range selection shows it (like
// Perfetto's area selection): per track and event name, how many events overlap the range and
// their self time inside it (the time in the event and in no event nested in it), the longest
// first. Self times on a track never overlap, so a track's rows sum to at most the range's
// length, however deep its stacks (a Python stack's frames are not counted once per level).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

struct RangeNameTotal {
  std::string name;
  uint32_t line = 0;     // the track
  uint64_t count = 0;
  int64_t self_ps = 0;   // inside the range, less what events nested in them cover
  int64_t total_ps = 0;  // inside the range, nested events included
};

struct TraceRangeSummary {
  uint64_t events = 0;                // every event overlapping the range
  std::vector<RangeNameTotal> names;  // per (track, name), the longest self time first, at most `limit`
  size_t distinct_names = 0;          // (track, name) pairs
  size_t tracks = 0;                  // tracks with an event in the range
  int64_t busy_ps = 0;                // self times summed: at most the range's length × `tracks`
};

// Events on the lines listed in `lines` (all lines when empty) overlapping [begin_ps, end_ps).
// On a line whose events overlap without nesting, each moment is the latest-started event's.
TraceRangeSummary summarize_trace_range(const model::Profile& profile, int64_t begin_ps, int64_t end_ps,
                                        const std::vector<uint32_t>& lines, size_t limit);

}  // namespace mlprof::analysis
