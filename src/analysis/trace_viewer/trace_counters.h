// Counter tracks for the trace viewer: values over time drawn as step charts above the slices.
//  - GPU queue length per stream: work launched by the host and not yet started there (+1 at
//    the launch call's start, −1 when its kernel or copy starts), as Holistic Trace Analysis'
//    queue length counts it: the GPU queue length analysis (gpu_queue_length.h) over the whole
//    profile.
//  - Memory in use per allocator (stack + heap), from the memory profile's timeline; in its
//    device's section when its name gives the device ("GPU_4_bfc", "cuda:1").
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/trace_viewer/trace_flows.h"
#include "model/profile.h"

namespace mlprof::analysis {

struct CounterTrack {
  std::string name;
  uint32_t plane = UINT32_MAX;  // the device plane it belongs to, or none (UINT32_MAX)
  std::string unit;  // "bytes", or "" for a count
  std::vector<std::pair<int64_t, int64_t>> points;  // (time ps, value from then on), by time
};

// At most about `max_points` points per track (counter_reducer.h).
std::vector<CounterTrack> trace_counter_tracks(const model::Profile& profile, const TraceFlows& flows,
                                               size_t max_points = 2000);

}  // namespace mlprof::analysis
