// One row per rank of the GPU timeline (docs/ARCHITECTURE.md §5.9): each part's headline
// figures for every host side by side, on one scale (ms and % of the same window), read before
// any host's detail. Built from the hosts' parts already computed (gpu_timeline.h).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace mlprof::analysis {

struct GpuTimeline;

struct GpuTimelineRankRow {
  std::string host;  // host_labels.h: "rank 3", or the file name without extension
  std::string file;  // the file name without extension
  // gpu_time_breakdown: the window, and idle time and each kind's time (overlaps merged) as
  // shares of it.
  std::optional<double> span_ms, idle_pct, computation_pct, communication_pct, memory_pct;
  // gpu_idle_time: idle time summed over streams, and its causes' shares of it.
  std::optional<double> idle_ms, host_wait_pct, kernel_wait_pct, other_wait_pct;
  // comm_compute_overlap: communication time and the share of it beside computation.
  std::optional<double> communication_ms, overlap_pct;
  // kernel_launch_stats.
  std::optional<double> launches, median_launch_delay_us, launch_bound;
  // gpu_queue_length: over its streams.
  std::optional<double> queue_max, queue_mean;
};

// One row per host of the timeline, in its order.
std::vector<GpuTimelineRankRow> gpu_timeline_rank_rows(const GpuTimeline& timeline);
nlohmann::json to_json(const std::vector<GpuTimelineRankRow>& rows);

}  // namespace mlprof::analysis
