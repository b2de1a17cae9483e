// The GPU work of each host (rank) that the timeline analyses read (docs/ARCHITECTURE.md §5.9): every
// kernel, copy and set on a device stream, with its kind (gpu_work_kind.h) and the runtime call
// on the host that launched it (joined by correlation id), limited to a scope:
//   - kHtaScope (the default): what Holistic Trace Analysis looks at, the whole profile less
//     its last step when the host has two or more steps (HTA's Trace with
//     include_last_profiler_step=False: GPU work counts when the call that launched it began
//     before the last step began; work with no launching call is then dropped, as HTA drops it);
//   - kAnalysedSteps: the windows of the steps that the step grouping selected, work clipped
//     to them;
//   - kWholeProfile: everything.
// Steps come from the step grouping (step_grouping.h), never from here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/gpu_timeline/gpu_work_kind.h"
#include "analysis/hta_time_rounding.h"
#include "analysis/step_grouping.h"
#include "model/profile.h"

namespace mlprof::analysis {

enum class GpuScope : uint8_t { kHtaScope, kAnalysedSteps, kWholeProfile };

struct GpuStream {
  uint32_t line = 0;               // index into Profile::lines
  int64_t id = 0;                  // the stream's number
  uint32_t device_ordinal = 0;     // n of "/device:GPU:n"
};

// Its time, clipped to its window, comes from the event: HostGpuActivity::begin_ps/end_ps.
struct GpuWork {
  model::EventIndex event = model::kNone;  // the kernel, copy or set
  model::EventIndex launch = model::kNone; // the runtime call that launched it, if known
  uint32_t window = 0;                     // which step window (kAnalysedSteps), else 0
  uint16_t stream = 0;                     // index into HostGpuActivity::streams
  GpuWorkKind kind = GpuWorkKind::kOther;
};

// 16 bytes an item: a step-wide analysis of a 10 M-event profile holds millions.
inline constexpr size_t kMaxStreamsPerHost = 65535;

struct HostGpuActivity {
  const model::Profile* profile = nullptr;  // what the work was collected from
  uint32_t host = 0;                 // index into Profile::hosts
  std::string name;                  // the host's name (one per rank for PyTorch traces)
  std::vector<GpuStream> streams;    // by device, then stream number
  std::vector<GpuWork> work;         // by stream, then start
  std::vector<uint32_t> stream_first;  // work of stream s: [stream_first[s], stream_first[s+1])
  // The time the analyses measure: [begin, end) windows (one, the span of the work, unless
  // restricted to steps).
  std::vector<std::pair<int64_t, int64_t>> windows;
  std::vector<int64_t> window_step_num;  // kAnalysedSteps: the step of each window
  std::string scope_note;            // what was left out, in words
  std::vector<std::string> warnings; // device work of unknown kind (device_work.h)
  size_t launches_seen = 0;          // host runtime calls carrying a correlation id

  // The item's time within its window (clipped to it: the scope kAnalysedSteps), rounded as
  // HTA when that was asked.
  int64_t begin_ps(const GpuWork& w) const { return std::max(gpu_begin(*profile, w), windows[w.window].first); }
  int64_t end_ps(const GpuWork& w) const { return std::min(gpu_end(*profile, w), windows[w.window].second); }

  // The whole item and its launch call (not clipped), rounded as HTA when that was asked.
  int64_t gpu_begin(const model::Profile& p, const GpuWork& w) const { return begin_of(p, w.event); }
  int64_t gpu_end(const model::Profile& p, const GpuWork& w) const { return end_of(p, w.event); }
  int64_t launch_begin(const model::Profile& p, const GpuWork& w) const { return begin_of(p, w.launch); }
  int64_t launch_end(const model::Profile& p, const GpuWork& w) const { return end_of(p, w.launch); }

  // GpuActivityOptions::round_like_hta: HTA's float64 microseconds, rounded (hta_time_rounding.h).
  bool round_like_hta = false;
  HtaTimeRounding hta_rounding{0};

 private:
  int64_t begin_of(const model::Profile& p, model::EventIndex e) const {
    return round_like_hta ? hta_rounding.start_ps(p.start_ps(e)) : p.start_ps(e);
  }
  int64_t end_of(const model::Profile& p, model::EventIndex e) const {
    return round_like_hta ? hta_rounding.end_ps(p.start_ps(e), p.duration_ps(e)) : p.end_ps(e);
  }
};

static_assert(sizeof(GpuWork) == 16);

struct GpuActivity {
  GpuScope scope = GpuScope::kHtaScope;
  std::vector<HostGpuActivity> hosts;  // hosts with GPU work, in the profile's order
};

struct GpuActivityOptions {
  GpuScope scope = GpuScope::kHtaScope;
  // HTA 0.6.1 rounds the times of traces with sub-microsecond timestamps to whole microseconds,
  // the start up and the end down (common/trace_parser.py:round_down_time_stamps), which makes
  // a 2.2 µs kernel last 1 or 2 µs. mlprof keeps the exact times; this option does as HTA does,
  // to compare figures with HTA's on such traces.
  bool round_like_hta = false;
};

GpuActivity collect_gpu_activity(const model::Profile& profile, const StepGrouping& grouping,
                                 const GpuActivityOptions& options);
inline GpuActivity collect_gpu_activity(const model::Profile& profile, const StepGrouping& grouping,
                                        GpuScope scope = GpuScope::kHtaScope) {
  return collect_gpu_activity(profile, grouping, GpuActivityOptions{scope, false});
}
// The whole profile (no steps needed).
GpuActivity collect_all_gpu_activity(const model::Profile& profile);

std::string_view gpu_scope_key(GpuScope scope);  // "hta", "steps", "profile"
// What the measured time (HostGpuActivity::windows) is in the scope, in words: "from the first
// to the last GPU work".
std::string_view gpu_span_description(GpuScope scope);

// The op on the host around a runtime call (the innermost enclosing event that is not itself
// a CUDA call), or empty.
std::string_view launching_op(const model::Profile& profile, model::EventIndex launch);

}  // namespace mlprof::analysis
