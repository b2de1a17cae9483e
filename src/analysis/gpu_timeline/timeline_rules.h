// Advice from rules on the GPU timeline, like Nsight Systems' expert system
// (docs/ARCHITECTURE.md §5.9). Each rule looks at the analysed steps (the whole profile without
// steps) and, when it fires, says how much time is at stake and which op causes it:
//   - synchronous copies: cudaMemcpy-style calls that block the host, and copies from
//     pageable host memory (the host waits for them too), in the steps;
//   - many tiny kernels: most launches run shorter on the GPU than their launch call takes;
//   - blocking synchronisation: cudaDeviceSynchronize / cudaStreamSynchronize / event
//     synchronize calls take a share of the step;
//   - low overlap of communication with computation;
//   - a straggler rank (stragglers.h).
// The overview page lists the sentences among its recommendations.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/gpu_timeline/comm_compute_overlap.h"
#include "analysis/gpu_timeline/kernel_launch_stats.h"
#include "analysis/run_environment.h"
#include "analysis/step_grouping.h"
#include "analysis/gpu_timeline/stragglers.h"
#include "model/profile.h"

namespace mlprof::analysis {

inline constexpr double kSyncCopyThresholdPct = 1.0;         // of the step time
inline constexpr double kBlockingSyncThresholdPct = 5.0;     // of the step time
inline constexpr double kTinyKernelsThresholdPct = 50.0;     // of the launches
inline constexpr size_t kTinyKernelsMinimum = 100;           // launches in the steps
inline constexpr double kCommunicationShareThresholdPct = 10.0;  // of GPU busy time
inline constexpr double kLowOverlapThresholdPct = 50.0;      // of communication time

enum class TimelineRule : uint8_t { kSyncCopies, kTinyKernels, kBlockingSync, kLowOverlap, kStragglerRank };

struct TimelineAdvice {
  TimelineRule rule = TimelineRule::kSyncCopies;
  std::string text;      // the recommendation, with its evidence
  std::string host;      // where it matters most
  double ms_per_step = 0;  // the time at stake per step
  std::string op;        // the op behind most of it, when one is
};

std::vector<TimelineAdvice> timeline_advice(const model::Profile& profile, const StepGrouping& grouping);

// Time charged to ops, for "most of it in <op>".
struct TimeByOp {
  int64_t total_ps = 0;
  size_t count = 0;
  std::map<std::string, int64_t, std::less<>> ops;
  void add(std::string_view op, int64_t ps);
  std::pair<std::string_view, int64_t> top() const;  // the op with the most time (ties: the first name)
};

// What the rules see on one host: in its analysed steps' windows, or in its whole profile when
// the run has no steps.
struct TimelineFindings {
  std::string host;  // its file's name, which links to it
  int64_t rank = -1;  // where its trace records it: the advice then names the rank
  GpuVendor vendor = GpuVendor::kNvidia;  // the advice names its runtime calls and features
  size_t steps = 0;
  int64_t step_ps = 0;  // the windows' length
  TimeByOp sync_copies, pageable_copies, blocking_syncs;
  KernelLaunchStats launches;
  CommComputeOverlap overlap;
  int64_t gpu_busy_ps = 0;
};

// One per host of the profile; `steps`: over the analysed steps (the run has some), else over
// each host's whole profile.
std::vector<TimelineFindings> timeline_findings(const model::Profile& profile, const StepGrouping& grouping,
                                                bool steps);
// The advice from every host's findings, in the run's order; `stragglers`: the run's, when it
// has steps and several hosts.
std::vector<TimelineAdvice> timeline_advice(const std::vector<TimelineFindings>& hosts, bool steps,
                                            const StragglerAnalysis* stragglers);

}  // namespace mlprof::analysis
