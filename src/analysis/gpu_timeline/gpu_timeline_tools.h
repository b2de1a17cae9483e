// The GPU timeline analyses as registry tools (tool_registry.cc): each computes its part of
// the GPU timeline (gpu_timeline.h) or the stragglers from a loaded profile and its step grouping,
// with the options below.
#pragma once

#include "analysis/tool_registry.h"

namespace mlprof::analysis {

// scope (hta, steps or profile) and hta_rounding.
extern const std::span<const ToolOption> kGpuTimelineOptions;

ToolResult gpu_time_breakdown_tool(const AnalyzedProfile& profile, const ToolOptionValues& options);
ToolResult gpu_idle_time_tool(const AnalyzedProfile& profile, const ToolOptionValues& options);
ToolResult comm_compute_overlap_tool(const AnalyzedProfile& profile, const ToolOptionValues& options);
ToolResult kernel_launch_stats_tool(const AnalyzedProfile& profile, const ToolOptionValues& options);
ToolResult gpu_queue_length_tool(const AnalyzedProfile& profile, const ToolOptionValues& options);
// The collectives table, with each rank's wait share (from the stragglers' steps).
ToolResult collectives_tool(const AnalyzedProfile& profile, const ToolOptionValues& options);
ToolResult stragglers_tool(const AnalyzedProfile& profile, const ToolOptionValues& options);

}  // namespace mlprof::analysis
