#include "analysis/gpu_timeline_tools.h"

#include "analysis/gpu_timeline.h"
#include "analysis/stragglers.h"

namespace mlprof::analysis {
namespace {

constexpr std::string_view kScopes[] = {"hta", "steps", "profile"};
constexpr ToolOption kOptions[] = {
    {.name = "scope",
     .help = "the time measured: hta (default) the profile less its last step, as Holistic Trace Analysis; steps "
             "the analysed steps; profile all of it",
     .choices = kScopes},
    {.name = "hta_rounding",
     .help = "round sub-microsecond times to whole microseconds as HTA does (to compare with its figures)",
     .is_flag = true},
};

GpuTimelineOptions options_of(const ToolOptionValues& values, uint32_t parts) {
  GpuTimelineOptions o;
  o.parts = parts;
  if (auto it = values.find("scope"); it != values.end())
    o.scope = it->second == "steps" ? GpuScope::kAnalysedSteps : it->second == "profile" ? GpuScope::kWholeProfile
                                                                                         : GpuScope::kHtaScope;
  if (auto it = values.find("hta_rounding"); it != values.end()) o.round_like_hta = it->second == "1" || it->second == "true";
  return o;
}

ToolResult part(const AnalyzedProfile& p, const ToolOptionValues& values, uint32_t parts) {
  return ToolResult::owned(compute_gpu_timeline(p.profile(), p.step_grouping(), options_of(values, parts)));
}

}  // namespace

constinit const std::span<const ToolOption> kGpuTimelineOptions = kOptions;

ToolResult gpu_time_breakdown_tool(const AnalyzedProfile& p, const ToolOptionValues& o) {
  return part(p, o, kGpuTimeBreakdownPart);
}
ToolResult gpu_idle_time_tool(const AnalyzedProfile& p, const ToolOptionValues& o) {
  return part(p, o, kGpuIdleTimePart);
}
ToolResult comm_compute_overlap_tool(const AnalyzedProfile& p, const ToolOptionValues& o) {
  return part(p, o, kCommComputeOverlapPart);
}
ToolResult kernel_launch_stats_tool(const AnalyzedProfile& p, const ToolOptionValues& o) {
  return part(p, o, kKernelLaunchStatsPart);
}
ToolResult gpu_queue_length_tool(const AnalyzedProfile& p, const ToolOptionValues& o) {
  return part(p, o, kGpuQueueLengthPart);
}
ToolResult stragglers_tool(const AnalyzedProfile& p, const ToolOptionValues&) {
  return ToolResult::owned(compute_stragglers(p.profile(), p.step_grouping()));
}

}  // namespace mlprof::analysis
