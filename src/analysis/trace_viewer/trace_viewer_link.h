// trace_viewer: the timeline is read piece by piece through the server's /api/trace (the
// viewport, details and search of trace_index.h); the tool's own result only says where, and
// how many events there are.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

#include "model/profile.h"

namespace mlprof::analysis {

struct TraceViewerLink {
  size_t num_events = 0;
};

TraceViewerLink compute_trace_viewer_link(const model::Profile& profile);

nlohmann::json to_json(const TraceViewerLink& link);
// A timeline has no table form: throws ToolRequestError saying where the events can be had.
std::string to_csv(const TraceViewerLink& link);

}  // namespace mlprof::analysis
