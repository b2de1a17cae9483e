// Text renderings of the tools' results for a terminal: the verdict and recommendations
// first, then aligned tables with units.
#pragma once

#include <string>
#include <string_view>

#include "analysis/critical_path/critical_path.h"
#include "analysis/gpu_timeline/collectives.h"
#include "analysis/framework_op_stats.h"
#include "analysis/gpu_timeline/gpu_timeline.h"
#include "analysis/hlo_stats.h"
#include "analysis/input_pipeline_analyzer.h"
#include "analysis/kernel_stats.h"
#include "analysis/memory_profile.h"
#include "analysis/op_profile.h"
#include "analysis/overview_page.h"
#include "analysis/pod_viewer.h"
#include "analysis/profile_diff.h"
#include "analysis/roofline_model.h"
#include "analysis/gpu_timeline/stragglers.h"
#include "analysis/tf_data_bottleneck_analysis.h"
#include "analysis/tool_registry.h"
#include "analysis/trace_viewer/trace_viewer_link.h"

namespace mlprof::cli {

// A renderer whose result can be empty takes `no_data`, what it prints then (no_data_note of
// the tool that computed it).
std::string render_text(const analysis::OverviewPage& page);
std::string render_text(const analysis::InputPipelineAnalysis& analysis);
std::string render_text(const analysis::FrameworkOpStats& stats, std::string_view no_data, size_t max_rows = 30);
std::string render_text(const analysis::TfDataBottleneckAnalysis& analysis, std::string_view no_data);
std::string render_text(const analysis::ProfileDiff& diff);
std::string render_text(const analysis::KernelStatsTable& table, std::string_view no_data, size_t max_rows = 30);
std::string render_text(const analysis::MemoryProfile& memory, std::string_view no_data, size_t max_rows = 15);
std::string render_text(const analysis::PodViewer& pod);
// The per-chip table; `host_marks_steps`: the host's step markers, else the chips' XLA programs, are the steps.
std::string render_text(const analysis::DeviceChips& chips, bool host_marks_steps);
std::string render_text(const analysis::TraceViewerLink& link);
std::string render_text(const analysis::CriticalPath& path, std::string_view no_data);
std::string render_text(const analysis::GpuTimeline& timeline);
std::string render_text(const analysis::StragglerAnalysis& stragglers);
std::string render_text(const analysis::CollectivesTable& collectives, std::string_view no_data);
// XLA's ops (report_text_xla_ops.cc): at most `max_ops` ops per category, rows, ops per device.
std::string render_text(const analysis::OpProfile& profile, std::string_view no_data, size_t max_ops = 5);
std::string render_text(const analysis::HloStats& stats, std::string_view no_data, size_t max_rows = 30);
std::string render_text(const analysis::RooflineModel& model, std::string_view no_data, size_t max_ops = 10);

// A registry tool's result as text, by the result's type (report_text_tools.cc); a result
// without a text rendering prints its JSON.
std::string render_tool_text(const analysis::Tool& tool, const analysis::ToolResult& result);

// Whether an op's name already says its type: PyTorch ops are named by their type, TensorFlow
// ops end with it (`scope/name:Type`). A type column is left out when every name says it.
bool name_says_type(const std::string& name, const std::string& type);

// What the registry says of a tool without data (why not, how to get some) as an indented
// paragraph, for the renderers to print where the result is empty.
std::string no_data_note(const analysis::Tool& tool);

}  // namespace mlprof::cli
