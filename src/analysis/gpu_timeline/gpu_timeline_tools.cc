#include "analysis/gpu_timeline/gpu_timeline_tools.h"

#include "analysis/gpu_timeline/gpu_timeline.h"
#include "analysis/gpu_timeline/collectives.h"
#include "analysis/gpu_timeline/stragglers.h"

namespace mlprof::analysis {
namespace {

constexpr std::string_view kScopes[] = {"hta", "steps", "profile"};
constexpr ToolOption kOptions[] = {
    {.name = "scope",
     .help = "which GPU work is measured. hta (the default): all of it but the last step's, from the first to the "
             "last GPU work (the work launched from the last step's start on is left out, as Holistic Trace "
             "Analysis, HTA, leaves it out; with fewer than two steps, all of it); steps: the work inside the "
             "analysed steps, each step from its start to its end; profile: all of it, from the first to the last "
             "GPU work",
     .choices = kScopes},
    {.name = "hta_rounding",
     .help = "round each GPU work's start up and its end down to whole microseconds, as Holistic Trace Analysis "
             "(HTA) does with traces timed finer than that, from the float64 microseconds it reads (a 2.2 us "
             "kernel then lasts 1 or 2 us): to compare figures with HTA's",
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
ToolResult collectives_tool(const AnalyzedProfile& p, const ToolOptionValues&) {
  CollectivesTable table = compute_collectives(p.profile());
  if (!table.rows.empty() && p.profile().hosts.size() > 1)
    table.ranks = collective_waits(compute_stragglers(p.profile(), p.step_grouping()));
  return ToolResult::owned(std::move(table));
}

ToolResult stragglers_tool(const AnalyzedProfile& p, const ToolOptionValues&) {
  return ToolResult::owned(compute_stragglers(p.profile(), p.step_grouping()));
}

}  // namespace mlprof::analysis
