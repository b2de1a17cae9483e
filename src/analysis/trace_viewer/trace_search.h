// Finding events by name for the trace viewer's search box: case-insensitive substring match
// on the event's name, on device tracks, host threads or both, matches in time order or the
// longest first (the search keeps the first `limit` of that order, however many match). And one event by its whole name, for a tool's
// row that links to the trace: the one nearest a time, or the longest.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

struct TraceSearchResult {
  std::vector<model::EventIndex> events;  // in the order asked, at most `limit`
  size_t total = 0;                       // all matches
};

enum class TraceSearchScope { kAll, kDevice, kHost };
enum class TraceSearchOrder { kStart, kLongest };

TraceSearchResult search_trace(const model::Profile& profile, std::string_view text, size_t limit,
                               TraceSearchScope scope = TraceSearchScope::kAll,
                               TraceSearchOrder order = TraceSearchOrder::kStart);

struct FoundTraceEvent {
  model::EventIndex event = model::kNone;  // kNone: no event has the name
  size_t occurrences = 0;                  // events of that name
};

// The event named exactly `name` that starts nearest `near_ps` (the profile's clock), or
// without a time the longest (the earliest of equals).
FoundTraceEvent find_trace_event(const model::Profile& profile, std::string_view name, std::optional<int64_t> near_ps);

}  // namespace mlprof::analysis
