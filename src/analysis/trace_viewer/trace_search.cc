#include "analysis/trace_viewer/trace_search.h"

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

TraceSearchResult search_trace(const model::Profile& p, std::string_view text, size_t limit, TraceSearchScope scope,
                               TraceSearchOrder order) {
  TraceSearchResult out;
  if (text.empty()) return out;
  // Names are few: match them once, then one pass over the events' name column.
  std::vector<uint8_t> matches(p.names.size(), 0);
  bool any = false;
  for (size_t n = 0; n < p.names.size(); ++n)
    any |= (matches[n] = contains_ignoring_case(p.strings.view(p.names[n].name), text));
  if (!any) return out;
  // `first(a, b)`: a comes before b in the order asked (ties by start, then by index).
  const auto by_start = [&](model::EventIndex a, model::EventIndex b) {
    return p.start_ps(a) != p.start_ps(b) ? p.start_ps(a) < p.start_ps(b) : a < b;
  };
  const auto first = [&](model::EventIndex a, model::EventIndex b) {
    if (order == TraceSearchOrder::kLongest && p.duration_ps(a) != p.duration_ps(b)) return p.duration_ps(a) > p.duration_ps(b);
    return by_start(a, b);
  };
  const auto in_scope = [&](const model::Line& line) {
    const model::PlaneKind kind = p.planes[line.plane].kind;
    if (scope == TraceSearchScope::kDevice) return kind == model::PlaneKind::kDevice;
    if (scope == TraceSearchScope::kHost) return kind == model::PlaneKind::kHostThreads;
    return true;
  };
  // Keep the `limit` first in a heap (its top the last of them) so memory stays bounded.
  std::vector<model::EventIndex> heap;
  for (const model::Line& line : p.lines) {
    if (!in_scope(line)) continue;
    for (model::EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
      if (!matches[p.events.name[e]]) continue;
      ++out.total;
      if (heap.size() < limit) {
        heap.push_back(e);
        std::push_heap(heap.begin(), heap.end(), first);
      } else if (limit > 0 && first(e, heap.front())) {
        std::pop_heap(heap.begin(), heap.end(), first);
        heap.back() = e;
        std::push_heap(heap.begin(), heap.end(), first);
      }
    }
  }
  std::sort_heap(heap.begin(), heap.end(), first);
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
