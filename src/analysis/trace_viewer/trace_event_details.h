// What the trace viewer's details pane shows for one event: where it is, its time, every
// stat (its own and its name's), its step, and the events its flows link it to.
#pragma once

#include <nlohmann/json.hpp>

#include "analysis/step_grouping.h"
#include "analysis/trace_viewer/trace_flows.h"
#include "model/profile.h"

namespace mlprof::analysis {

// Times are picoseconds since `trace_begin_ps` (the viewer's zero), keys per docs/ARCHITECTURE.md §4.
nlohmann::ordered_json trace_event_details(const model::Profile& profile, const StepGrouping& steps,
                                           const TraceFlows& flows, model::EventIndex event, int64_t trace_begin_ps);

}  // namespace mlprof::analysis
