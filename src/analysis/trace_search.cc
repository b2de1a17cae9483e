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

}  // namespace mlprof::analysis
