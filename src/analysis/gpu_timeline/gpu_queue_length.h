// GPU queue length per stream (docs/ARCHITECTURE.md §5.9): work launched by the host and
// not yet started on the stream, as Holistic Trace Analysis' TraceCounters counts it (+1 at
// the launch call's start, −1 when the work starts). Per stream: the maximum, the time-weighted
// mean over the time from the first to the last change, and HTA's own "mean" (pandas describe()
// of the value after each change, not time-weighted); and the series as a counter track for
// the trace viewer, reduced to at most `max_points` points per stream keeping every maximum.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/gpu_timeline/gpu_activity.h"

namespace mlprof::analysis {

struct StreamQueueLength {
  uint32_t line = 0;  // the stream's line in the profile
  int64_t stream_id = 0;
  uint32_t device_ordinal = 0;
  size_t changes = 0;
  int64_t max = 0;
  double mean = 0;             // time-weighted
  double mean_at_changes = 0;  // HTA's figure
  std::vector<std::pair<int64_t, int64_t>> series;  // (time ps, queue length after it)
};

std::vector<StreamQueueLength> compute_gpu_queue_length(const model::Profile& profile, const HostGpuActivity& host,
                                                        size_t max_points = 2000);

// The gpu_queue_length part of the GPU timeline's JSON (gpu_timeline.h).
nlohmann::json to_json(const std::vector<StreamQueueLength>& queue);

}  // namespace mlprof::analysis
