// Self time: an op's duration minus the time of the ops nested in it on the same line
// (directly or through events that are not ops), docs/ARCHITECTURE.md §5.3.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "analysis/interval_union.h"
#include "model/profile.h"

namespace mlprof::analysis {

// Calls on_op(event, self_ps) for each event of `line` that is_op(event) accepts. When
// `top_level` is given, it receives the spans of ops not nested in another op (busy time).
template <typename IsOp, typename OnOp>
void for_each_op_self_time(const model::Profile& p, const model::Line& line, IsOp&& is_op, OnOp&& on_op,
                           std::vector<TimeInterval>* top_level = nullptr) {
  struct Open {
    model::EventIndex event;
    int32_t nearest_op;  // stack index of the innermost open op at or below this entry, or -1
    int64_t child_ps;
  };
  std::vector<Open> open;
  auto finish_top = [&]() {
    const Open o = open.back();
    open.pop_back();
    if (o.nearest_op >= 0 && size_t(o.nearest_op) == open.size())
      on_op(o.event, std::max<int64_t>(0, p.duration_ps(o.event) - o.child_ps));
  };
  for (model::EventIndex e = line.first_event; e < line.first_event + line.num_events; ++e) {
    // The line's events come parents first, so the open events are e's ancestors.
    const model::EventIndex parent = p.events.parent[e];
    while (!open.empty() && open.back().event != parent) finish_top();
    int32_t below = open.empty() ? -1 : open.back().nearest_op;
    if (is_op(e)) {
      if (below >= 0) open[size_t(below)].child_ps += p.duration_ps(e);
      else if (top_level) top_level->push_back({p.start_ps(e), p.end_ps(e)});
      below = int32_t(open.size());
    }
    open.push_back({e, below, 0});
  }
  while (!open.empty()) finish_top();
}

}  // namespace mlprof::analysis
