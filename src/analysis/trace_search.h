// Finding events by name for the trace viewer's search box: case-insensitive substring match
// on the event's name, matches in time order.
#pragma once

#include <string_view>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

struct TraceSearchResult {
  std::vector<model::EventIndex> events;  // by start, at most `limit`
  size_t total = 0;                       // all matches
};

TraceSearchResult search_trace(const model::Profile& profile, std::string_view text, size_t limit);

}  // namespace mlprof::analysis
