// Step-time breakdown (docs/ARCHITECTURE.md §5.2): every instant of a step is charged to the
// highest-priority activity running then; what nothing covers is "other". Shared by the
// overview page, the input pipeline analyzer and diff.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "analysis/interval_union.h"
#include "analysis/step_grouping.h"
#include "model/profile.h"

namespace mlprof::analysis {

// Low to high priority.
enum class Activity : uint8_t {
  kHostCompute,
  kHostPreprocess,
  kHostPostprocess,
  kHostBatchFormation,
  kHostRuntime,
  kHostCompile,
  kHostToHostCopy,
  kHostToDeviceCopy,
  kHostPrepareLaunch,
  kDeviceCollectives,
  kHostWaitInput,
  kDeviceToDeviceCopy,
  kDeviceToHostCopy,
  kDeviceCompute32,
  kDeviceCompute16,
  kDeviceWaitDevice,
  kDeviceWaitHost,
};
inline constexpr size_t kNumActivities = 17;

// The categories a user sees.
enum class Category : uint8_t {
  kInput, kOutput, kCompilation, kKernelLaunch, kHostCompute, kDeviceToDevice, kDeviceCollectives,
  kDeviceCompute, kOther,
};
inline constexpr size_t kNumCategories = 9;
// JSON keys, in Category order.
inline constexpr std::array<std::string_view, kNumCategories> kCategoryKeys = {
    "input", "output", "compilation", "kernel_launch", "host_compute", "device_to_device",
    "device_collectives", "device_compute", "other"};

Category category_of(Activity a);

struct StepBreakdown {
  uint32_t group = 0;  // kNone-like UINT32_MAX for the whole-profile pseudo step
  uint32_t host = 0;
  int64_t step_num = 0;
  int64_t begin_ps = 0;
  int64_t duration_ps = 0;
  std::array<int64_t, kNumActivities> activity_ps{};
  int64_t other_ps = 0;

  int64_t ps(Activity a) const { return activity_ps[size_t(a)]; }
  std::array<int64_t, kNumCategories> category_ps() const;
};

struct StepAnalysis {
  StepGrouping grouping;
  std::vector<StepBreakdown> steps;  // the selected steps, by host then start
  bool whole_profile = false;        // no step markers: one pseudo step spans the profile
  int64_t profiler_control_ps = 0;   // the profiler's own start and stop (profiler_control.h), in no step
  std::vector<TimeInterval> input_wait;  // the steps' time in Category::kInput, merged (sorted, disjoint)
};

StepAnalysis analyze_steps(const model::Profile& profile);
// The same from the profile's grouping, made before (group_steps).
StepAnalysis analyze_steps(const model::Profile& profile, StepGrouping grouping);
// The selected steps of a grouping with their windows only, not yet broken down: StepAnalysis::
// steps where the steps are marked (the critical path reads no more of them).
std::vector<StepBreakdown> selected_steps(const StepGrouping& grouping);

// avg, stddev (population), min, max of a series.
struct SeriesStats {
  double avg = 0, stddev = 0, min = 0, max = 0;
};
SeriesStats series_stats(const std::vector<double>& values);

}  // namespace mlprof::analysis
