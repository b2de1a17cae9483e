// Tool id (analysis/tool_registry.h) -> its text rendering: one line per tool.
#include <stdexcept>

#include "cli/report_text.h"

namespace mlprof::cli {
namespace {

template <class Result>
std::string text_of(const analysis::ToolResult& result) {
  const Result* r = result.get<Result>();
  if (!r) throw std::logic_error("a text renderer was given another tool's result");
  return render_text(*r);
}

struct TextRenderer {
  std::string_view tool;
  std::string (*render)(const analysis::ToolResult&);
};

constexpr TextRenderer kRenderers[] = {
    {"overview_page", text_of<analysis::OverviewPage>},
    {"input_pipeline_analyzer", text_of<analysis::InputPipelineAnalysis>},
    {"framework_op_stats", text_of<analysis::FrameworkOpStats>},
    {"tf_data_bottleneck_analysis", text_of<analysis::TfDataBottleneckAnalysis>},
    {"kernel_stats", text_of<analysis::KernelStatsTable>},
    {"pod_viewer", text_of<analysis::PodViewer>},
    {"gpu_time_breakdown", text_of<analysis::GpuTimeline>},
    {"gpu_idle_time", text_of<analysis::GpuTimeline>},
    {"comm_compute_overlap", text_of<analysis::GpuTimeline>},
    {"kernel_launch_stats", text_of<analysis::GpuTimeline>},
    {"gpu_queue_length", text_of<analysis::GpuTimeline>},
    {"stragglers", text_of<analysis::StragglerAnalysis>},
    {"collectives", text_of<analysis::CollectivesTable>},
    {"memory_profile", text_of<analysis::MemoryProfile>},
    {"op_profile", text_of<analysis::OpProfile>},
    {"hlo_stats", text_of<analysis::HloStats>},
    {"roofline_model", text_of<analysis::RooflineModel>},
    {"trace_viewer", text_of<analysis::TraceViewerLink>},
};

}  // namespace

std::string render_tool_text(std::string_view tool_id, const analysis::ToolResult& result) {
  for (const TextRenderer& r : kRenderers)
    if (r.tool == tool_id) return r.render(result);
  return result.json().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace mlprof::cli
