// GPU time breakdown (docs/ARCHITECTURE.md §5.9): of the time from the first to the last GPU
// activity of a host (or of its step windows), the share the GPU was idle, computing, and busy
// with anything else (communication, copies and sets); and the time of each work kind per
// device and stream. HTA's BreakdownAnalysis.get_temporal_breakdown: idle = span − union of all
// GPU work, compute = union of computation work, non-compute = the rest. The kind split is
// each kind's union over the union of computation, communication and memory work (HTA's
// get_gpu_kernel_breakdown, counting time where kinds overlap in each of them).
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <vector>

#include "analysis/gpu_timeline/gpu_activity.h"

namespace mlprof::analysis {

struct GpuKindTimes {
  std::array<int64_t, kNumGpuWorkKinds> union_ps{};  // per GpuWorkKind, overlaps merged
  int64_t busy_ps = 0;                                // union of all work
};

struct GpuStreamTime {
  int64_t stream_id = 0;
  uint32_t device_ordinal = 0;
  size_t events = 0;
  GpuKindTimes times;
};

struct GpuDeviceTime {
  uint32_t device_ordinal = 0;
  GpuKindTimes times;
};

struct GpuTimeBreakdown {
  int64_t span_ps = 0;  // the measured windows' length
  GpuKindTimes times;
  int64_t ccm_busy_ps = 0;  // union of computation, communication and memory work
  std::vector<GpuDeviceTime> devices;
  std::vector<GpuStreamTime> streams;

  int64_t idle_ps() const { return span_ps - times.busy_ps; }
  double idle_pct() const;
  double compute_pct() const;
  double non_compute_pct() const;
  double kind_pct(GpuWorkKind kind) const;  // of ccm_busy_ps
};

GpuTimeBreakdown compute_gpu_time_breakdown(const HostGpuActivity& host);

// The gpu_time_breakdown part of the GPU timeline's JSON (gpu_timeline.h).
nlohmann::json to_json(const GpuTimeBreakdown& breakdown);

}  // namespace mlprof::analysis
