#include "analysis/trace_viewer/trace_viewer_link.h"

#include "analysis/tool_registry.h"

namespace mlprof::analysis {

TraceViewerLink compute_trace_viewer_link(const model::Profile& profile) { return {profile.num_events()}; }

nlohmann::json to_json(const TraceViewerLink& link) { return {{"api", "/api/trace"}, {"num_events", link.num_events}}; }

std::string to_csv(const TraceViewerLink&) {
  throw ToolRequestError("trace_viewer has no CSV form: use /api/trace, or mlprof convert --to chrome|perfetto");
}

}  // namespace mlprof::analysis
