// Why a GPU stream is idle (docs/ARCHITECTURE.md §5.9), with Holistic Trace Analysis'
// rules (BreakdownAnalysis._analyze_idle_time_for_stream, HTA 0.6.1). On each stream, work
// sorted by start, the gap before an item is its start minus the end of the item before it:
//   - host wait: the runtime call that launched the item began after the previous item ended
//     (the host was late);
//   - kernel wait: not a host wait, and the gap is shorter than kKernelWaitThreshold (30 µs,
//     HTA's consecutive_kernel_delay): the latency of back-to-back launches;
//   - other: the rest (synchronisation, waiting on another stream or event).
// As in HTA a gap may be negative (work that overlaps its predecessor) and then counts as a
// kernel wait. mlprof differs in one way: with the analysis restricted to steps, gaps between
// two step windows are not counted.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/gpu_timeline/gpu_activity.h"

namespace mlprof::analysis {

inline constexpr int64_t kKernelWaitThresholdPs = 30'000'000;  // 30 µs

enum class IdleCause : uint8_t { kHostWait, kKernelWait, kOther };
inline constexpr size_t kNumIdleCauses = 3;
std::string_view idle_cause_key(IdleCause cause);  // "host_wait", "kernel_wait", "other"

struct IdleGap {
  int64_t begin_ps = 0, length_ps = 0;
  uint32_t stream = 0;                     // index into HostGpuActivity::streams
  IdleCause cause = IdleCause::kOther;
  model::EventIndex next = model::kNone;   // the work that ends the gap
  model::EventIndex launch = model::kNone; // its runtime call
};

struct StreamIdleTime {
  int64_t stream_id = 0;
  uint32_t device_ordinal = 0;
  std::array<int64_t, kNumIdleCauses> cause_ps{};
  std::array<size_t, kNumIdleCauses> gaps{};
  int64_t idle_ps() const { return cause_ps[0] + cause_ps[1] + cause_ps[2]; }
};

struct GpuIdleTime {
  std::vector<StreamIdleTime> streams;
  std::vector<IdleGap> largest;  // the longest gaps of the host, longest first
};

GpuIdleTime compute_gpu_idle_time(const model::Profile& profile, const HostGpuActivity& host,
                                  size_t max_gaps = 10, int64_t kernel_wait_threshold_ps = kKernelWaitThresholdPs);

// The gpu_idle_time part of the GPU timeline's JSON (gpu_timeline.h): `next_names` and `launch_ops`
// name each listed gap's work after it and the op that launched that work.
nlohmann::json to_json(const GpuIdleTime& idle, const std::vector<std::string>& next_names,
                       const std::vector<std::string>& launch_ops);

}  // namespace mlprof::analysis
