// A registry tool's result as text: the render_text overload of the result's type. The tool's
// id is not needed: each result type has one text form (the GPU timeline's tools share
// GpuTimeline, whose text shows the parts the tool computed).
#include "cli/report_text.h"

namespace mlprof::cli {
namespace {

// Renders `result` when it holds a Result, with the tool's no-data note where the type's text
// has an empty form.
template <class Result>
bool render_as(const analysis::ToolResult& result, std::string_view no_data, std::string& out) {
  const Result* r = result.get<Result>();
  if (!r) return false;
  if constexpr (requires { render_text(*r, no_data); })
    out = render_text(*r, no_data);
  else
    out = render_text(*r);
  return true;
}

template <class... Results>
bool render_any(const analysis::ToolResult& result, std::string_view no_data, std::string& out) {
  return (render_as<Results>(result, no_data, out) || ...);
}

}  // namespace

std::string render_tool_text(const analysis::Tool& tool, const analysis::ToolResult& result) {
  using namespace analysis;
  std::string out;
  if (render_any<OverviewPage, InputPipelineAnalysis, FrameworkOpStats, TfDataBottleneckAnalysis, KernelStatsTable,
                 PodViewer, GpuTimeline, StragglerAnalysis, CollectivesTable, MemoryProfile, OpProfile, HloStats,
                 RooflineModel, TraceViewerLink, CriticalPath>(result, no_data_note(tool), out))
    return out;
  return result.json().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace mlprof::cli
