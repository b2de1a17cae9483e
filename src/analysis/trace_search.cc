#include "analysis/trace_search.h"

#include <algorithm>
#include <cctype>

namespace mlprof::analysis {
namespace {

bool contains_ignoring_case(std::string_view hay, std::string_view needle) {
  return std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
         }) != hay.end();
}

}  // namespace

TraceSearchResult search_trace(const model::Profile& p, std::string_view text, size_t limit) {
  TraceSearchResult out;
  if (text.empty()) return out;
  // Names are few: match them once, then one pass over the events' name column.
  std::vector<uint8_t> matches(p.names.size(), 0);
  bool any = false;
  for (size_t n = 0; n < p.names.size(); ++n)
    any |= (matches[n] = contains_ignoring_case(p.strings.view(p.names[n].name), text));
  if (!any) return out;
  const auto by_start = [&](model::EventIndex a, model::EventIndex b) {
    return p.start_ps(a) != p.start_ps(b) ? p.start_ps(a) < p.start_ps(b) : a < b;
  };
  // Keep the `limit` earliest in a heap (max-heap by start) so memory stays bounded.
  std::vector<model::EventIndex> heap;
  for (model::EventIndex e = 0, n = model::EventIndex(p.num_events()); e < n; ++e) {
    if (!matches[p.events.name[e]]) continue;
    ++out.total;
    if (heap.size() < limit) {
      heap.push_back(e);
      std::push_heap(heap.begin(), heap.end(), by_start);
    } else if (limit > 0 && by_start(e, heap.front())) {
      std::pop_heap(heap.begin(), heap.end(), by_start);
      heap.back() = e;
      std::push_heap(heap.begin(), heap.end(), by_start);
    }
  }
  std::sort_heap(heap.begin(), heap.end(), by_start);
  out.events = std::move(heap);
  return out;
}

FoundTraceEvent find_trace_event(const model::Profile& p, std::string_view name, std::optional<int64_t> near_ps) {
  FoundTraceEvent out;
  std::vector<uint8_t> named(p.names.size(), 0);
  bool any = false;
  for (size_t n = 0; n < p.names.size(); ++n) any |= (named[n] = p.strings.view(p.names[n].name) == name);
  if (!any) return out;
  // Smaller is better: the distance from the time, or the duration negated.
  const auto cost = [&](model::EventIndex e) {
    if (near_ps) return p.start_ps(e) > *near_ps ? p.start_ps(e) - *near_ps : *near_ps - p.start_ps(e);
    return -p.duration_ps(e);
  };
  int64_t best = 0;
  for (model::EventIndex e = 0, n = model::EventIndex(p.num_events()); e < n; ++e) {
    if (!named[p.events.name[e]]) continue;
    ++out.occurrences;
    const int64_t c = cost(e);
    if (out.event == model::kNone || c < best || (c == best && p.start_ps(e) < p.start_ps(out.event))) {
      out.event = e;
      best = c;
    }
  }
  return out;
}

}  // namespace mlprof::analysis
