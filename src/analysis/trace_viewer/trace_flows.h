// Arrows between events in a timeline: from a launch on a host thread to the device work with
// its correlation id, and from a producer to its consumers (_p/_c with matching types, the
// links step grouping follows across threads; docs/ARCHITECTURE.md §3.2, §5.1).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model/profile.h"

namespace mlprof::analysis {

enum class TraceFlowKind : uint8_t { kLaunch, kProducerConsumer };

struct TraceFlow {
  model::EventIndex from = model::kNone;
  model::EventIndex to = model::kNone;
  TraceFlowKind kind = TraceFlowKind::kLaunch;
};

// Every flow, with lookups by either end. A flow's id is its index in `flows` plus one.
struct TraceFlows {
  std::vector<TraceFlow> flows;          // sorted by `from`
  std::vector<uint32_t> by_target;       // indices into flows, sorted by `to`

  std::span<const TraceFlow> starting_at(model::EventIndex e) const;
  // Indices into `flows` of the flows that end at e.
  std::span<const uint32_t> ending_at(model::EventIndex e) const;
};

TraceFlows find_trace_flows(const model::Profile& profile);

}  // namespace mlprof::analysis
