// The GPU timeline tools (docs/ARCHITECTURE.md §5.9): per host (rank), the GPU time breakdown, idle time by
// cause, communication/computation overlap, kernel launch statistics and queue length, each
// computed from one collection of the host's GPU work (gpu_activity.h). Each registry tool asks
// for its part; the JSON form has `ranks[]`, one row per host (gpu_timeline_ranks.h), then
// `hosts[]` with `host` and a key per part.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "analysis/gpu_timeline/comm_compute_overlap.h"
#include "analysis/gpu_timeline/gpu_activity.h"
#include "analysis/gpu_timeline/gpu_idle_time.h"
#include "analysis/gpu_timeline/gpu_queue_length.h"
#include "analysis/gpu_timeline/gpu_time_breakdown.h"
#include "analysis/gpu_timeline/kernel_launch_stats.h"
#include "analysis/step_grouping.h"

namespace mlprof::analysis {

enum GpuTimelinePart : uint32_t {
  kGpuTimeBreakdownPart = 1,
  kGpuIdleTimePart = 2,
  kCommComputeOverlapPart = 4,
  kKernelLaunchStatsPart = 8,
  kGpuQueueLengthPart = 16,
  kAllGpuTimelineParts = 31,
};

struct GpuTimelineOptions {
  uint32_t parts = kAllGpuTimelineParts;
  GpuScope scope = GpuScope::kHtaScope;
  bool round_like_hta = false;    // GpuActivityOptions::round_like_hta
  size_t max_listed = 10;         // gaps, launches and kernel names listed per host
  size_t max_queue_points = 2000; // per stream
};

struct HostGpuTimeline {
  std::string host;  // host_labels.h: "rank 3", or the file name without extension
  std::string file;  // the file name without extension
  std::string scope_note;
  std::vector<std::string> warnings;  // device work of unknown kind
  std::optional<GpuTimeBreakdown> breakdown;
  std::optional<GpuIdleTime> idle;
  std::optional<CommComputeOverlap> overlap;
  std::optional<KernelLaunchStats> launches;
  std::optional<std::vector<StreamQueueLength>> queue;
  // Names the listed gaps refer to, resolved here so the result stands alone.
  std::vector<std::string> gap_next_names, gap_launch_ops;
};

struct GpuTimeline {
  GpuScope scope = GpuScope::kHtaScope;
  uint32_t parts = kAllGpuTimelineParts;
  std::vector<HostGpuTimeline> hosts;  // hosts with GPU work
};

GpuTimeline compute_gpu_timeline(const model::Profile& profile, const StepGrouping& grouping,
                                 const GpuTimelineOptions& options = {});
HostGpuTimeline compute_host_gpu_timeline(const model::Profile& profile, const HostGpuActivity& host,
                                          const GpuTimelineOptions& options = {});

nlohmann::json to_json(const GpuTimeline& timeline);
std::string to_csv(const GpuTimeline& timeline);  // one row per host and stream

}  // namespace mlprof::analysis
